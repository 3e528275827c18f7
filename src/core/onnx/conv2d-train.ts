/**
 * The conv2d block's train step: forward, loss, backward and the optimizer
 * update as one ONNX graph, weights in → updated weights out.
 *
 * Idea: as for the 1-D block (conv1d-train.ts), the Conv's weight gradient
 * is itself a Conv. With the batch and channel axes of `x` swapped
 * (`[channels, batch, H, W]`) and the output gradient `dz` as the kernel
 * (`[filters, batch, H, W]`), the same 'same' padding gives `[channels,
 * filters, k, k]` — `Σ_b Σ_{i,j} dz[b,f,i,j] · x[b,c,i+u−pad,j+v−pad]` —
 * which one Transpose turns into `dW`. Only ops every execution provider
 * runs (Conv, Transpose, Gemm, Where, ReduceSum). Trade-off: that Conv's
 * kernel is the whole image, a shape kernels are not tuned for; for the
 * small images this block is for, it costs little.
 */
import { conv2dForward, conv2dWeightLayout, samePads2d, type Conv2dSpec } from './conv2d.ts';
import { meanPooledConvGradients } from './conv-gradient.ts';
import { BATCH } from './mlp-layers.ts';
import {
  lossWithGradient,
  startTrainStep,
  type TrainStep,
  type TrainStepOptions,
} from './train-step.ts';

/**
 * Builds the conv2d block's train step; inputs `x [batch, channels, height,
 * width]` and `y [batch, outputs]`, the loss averaged over the batch.
 */
export function buildConv2dTrainStep(spec: Conv2dSpec, options: TrainStepOptions): TrainStep {
  const {
    g,
    x,
    y,
    weights: w,
    finish,
  } = startTrainStep('conv2d', options, () => conv2dWeightLayout(spec), {
    x: [BATCH, spec.channels, spec.height, spec.width],
    y: [BATCH, spec.outputSize],
  });

  const { z, pooled, logits } = conv2dForward(g, spec, x, w);
  const { loss, dLogits } = lossWithGradient(g, options.loss, logits, y, spec.outputSize);

  const gradients = meanPooledConvGradients(
    g,
    w,
    { x, z, pooled },
    dLogits,
    [spec.height, spec.width],
    samePads2d(spec.kernel),
  );

  return finish(loss, gradients);
}
