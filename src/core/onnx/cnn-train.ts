/**
 * The CNN's train step: forward, loss, backward and the optimizer update as
 * one ONNX graph, weights in → updated weights out.
 *
 * Idea: the backward pass is written by hand from ops every execution
 * provider runs, block by block from the head down:
 * - the 2×2 max-pool routes each pooled gradient to the pixel that won:
 *   the pooled maps and their gradients are upsampled (Reshape → Expand →
 *   Reshape) and kept where `Equal(a, upsampled max)`; an odd last row or
 *   column, which the pool dropped, gets zero (Slice, then Pad);
 * - ReLU keeps the gradient where the conv's output was positive;
 * - the conv's weight gradient is itself a Conv (conv-gradient.ts), its
 *   input gradient a ConvTranspose with the same weights and padding (the
 *   adjoint of a stride-1 'same' conv).
 * Trade-off: the max-pool's mask gives a tied window's gradient to every
 * pixel that ties; after ReLU a tie is almost always a window of zeros,
 * whose gradient ReLU then drops, so it costs nothing in practice and saves
 * the pool's index output, which not every provider has.
 */
import type { ValueRef } from './graph.ts';
import type { TracingGraphBuilder } from './graph-trace.ts';
import { cnnForward, cnnSides, cnnWeightLayout, type CnnSpec } from './cnn.ts';
import { samePads2d } from './conv2d.ts';
import { need } from './block-weights.ts';
import { convWeightGradient } from './conv-gradient.ts';
import { scalar } from './mlp-activations.ts';
import { BATCH } from './mlp-layers.ts';
import {
  lossWithGradient,
  startTrainStep,
  type TrainStep,
  type TrainStepOptions,
} from './train-step.ts';

/** `[batch, c, h, w] → [batch, c, 2h, 2w]`, each value repeated over its 2×2 window. */
function upsample2x(g: TracingGraphBuilder, t: ValueRef, c: number, h: number, w: number) {
  const spread = g.op('Reshape', [t, g.constant([0, c, h, 1, w, 1], 'int64')]);
  const repeated = g.op('Expand', [spread, g.constant([1, 1, 1, 2, 1, 2], 'int64')]);
  return g.op('Reshape', [repeated, g.constant([0, c, 2 * h, 2 * w], 'int64')]);
}

/**
 * Builds the CNN's train step; inputs `x [batch, channels, height, width]`
 * and `y [batch, outputs]`, the loss averaged over the batch.
 */
export function buildCnnTrainStep(spec: CnnSpec, options: TrainStepOptions): TrainStep {
  const {
    g,
    x,
    y,
    weights: w,
    finish,
  } = startTrainStep('cnn', options, () => cnnWeightLayout(spec), {
    x: [BATCH, spec.channels, spec.height, spec.width],
    y: [BATCH, spec.outputSize],
  });

  const { blocks, flat, logits } = cnnForward(g, spec, x, w);
  const { loss, dLogits } = lossWithGradient(g, options.loss, logits, y, spec.outputSize);

  const zero = scalar(g, 0);
  const gradients = new Map([
    ['head.W', g.op('Gemm', [flat, dLogits], { transA: 1 })],
    ['head.b', g.op('ReduceSum', [dLogits, g.constant([0], 'int64')], { keepdims: 0 })],
  ]);
  const [lastH, lastW] = cnnSides(spec, spec.blocks);
  let dPooled = g.op('Reshape', [
    g.op('Gemm', [dLogits, need(w, 'head.W')], { transB: 1 }),
    g.constant([0, spec.filters, lastH, lastW], 'int64'),
  ]);
  const pads = samePads2d(spec.kernel);
  for (let l = spec.blocks - 1; l >= 0; l--) {
    const block = blocks[l]!;
    const [h, wd] = cnnSides(spec, l);
    const [ph, pw] = cnnSides(spec, l + 1);
    const f = spec.filters;
    // The pool read only the even part of an odd-sided map.
    const cropped = ph * 2 !== h || pw * 2 !== wd;
    const a = cropped
      ? g.op('Slice', [
          block.a,
          g.constant([0, 0], 'int64'),
          g.constant([2 * ph, 2 * pw], 'int64'),
          g.constant([2, 3], 'int64'),
        ])
      : block.a;
    const winner = g.op('Equal', [a, upsample2x(g, block.pooled, f, ph, pw)]);
    let dA = g.op('Where', [winner, upsample2x(g, dPooled, f, ph, pw), zero]);
    if (cropped)
      dA = g.op('Pad', [dA, g.constant([0, 0, 0, 0, 0, 0, h - 2 * ph, wd - 2 * pw], 'int64')]);
    const dz = g.op('Where', [g.op('Greater', [block.z, zero]), dA, zero]);
    gradients.set(
      `conv${l}.b`,
      g.op('ReduceSum', [dz, g.constant([0, 2, 3], 'int64')], { keepdims: 0 }),
    );
    gradients.set(`conv${l}.W`, convWeightGradient(g, block.input, dz, [h, wd], pads));
    if (l > 0)
      dPooled = g.op('ConvTranspose', [dz, need(w, `conv${l}.W`)], {
        kernel_shape: [spec.kernel, spec.kernel],
        pads,
      });
  }

  return finish(loss, gradients);
}
