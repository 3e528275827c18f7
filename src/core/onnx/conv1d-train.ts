/**
 * The conv block's train step: forward, loss, backward and the optimizer
 * update as one ONNX graph, weights in → updated weights out.
 *
 * Idea: the Conv's weight gradient is itself a Conv. With the batch and
 * channel axes of `x` swapped (`[channels, batch, length]`) and the output
 * gradient `dz` used as the kernel (`[filters, batch, length]`), the same
 * 'same' padding gives `[channels, filters, kernel]` — `Σ_b Σ_t dz[b,f,t] ·
 * x[b,c,t+j−pad]` — which one Transpose turns into `dW`. So the backward pass
 * is only ops every execution provider runs (Conv, Transpose, Gemm, Where,
 * ReduceSum), no im2col buffers. Trade-off: that Conv's kernel is as long as
 * the signal, a shape kernels are not tuned for; for the short signals this
 * block is for, it costs nothing that matters.
 */
import { conv1dForward, conv1dWeightLayout, samePads, type Conv1dSpec } from './conv1d.ts';
import { meanPooledConvGradients } from './conv-gradient.ts';
import { BATCH } from './mlp-layers.ts';
import {
  lossWithGradient,
  startTrainStep,
  type TrainStep,
  type TrainStepOptions,
} from './train-step.ts';

/**
 * Builds the conv block's train step; inputs `x [batch, channels, length]`
 * and `y [batch, outputs]`, the loss averaged over the batch.
 */
export function buildConv1dTrainStep(spec: Conv1dSpec, options: TrainStepOptions): TrainStep {
  const {
    g,
    x,
    y,
    weights: w,
    finish,
  } = startTrainStep('conv1d', options, () => conv1dWeightLayout(spec), {
    x: [BATCH, spec.channels, spec.length],
    y: [BATCH, spec.outputSize],
  });

  const { z, pooled, logits } = conv1dForward(g, spec, x, w);
  const { loss, dLogits } = lossWithGradient(g, options.loss, logits, y, spec.outputSize);

  const gradients = meanPooledConvGradients(
    g,
    w,
    { x, z, pooled },
    dLogits,
    [spec.length],
    samePads(spec.kernel),
  );

  return finish(loss, gradients);
}
