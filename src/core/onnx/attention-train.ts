/**
 * The attention block's train step: forward, loss over every position,
 * backward and the optimizer update as one ONNX graph.
 *
 * Idea: the backward pass follows the forward pass in reverse with the ops
 * it already uses. Projections flatten `[batch, positions, ·]` to rows so
 * each weight gradient is one Gemm (`xᵀ·d`, summed over batch and positions
 * at once); the attention itself stays batched (MatMul over `[batch, ·, ·]`);
 * softmax's gradient is `p ⊙ (dp − Σ dp ⊙ p)` along each row (with several
 * heads, per head: the gradient split into heads as the forward split, and
 * merged back before the projections). The causal
 * mask is a constant added to the scores, so its gradient is nothing and
 * masked positions get none because their weight is 0. Trade-off: the loss
 * is the mean over every position of every sequence, so a sequence's weight
 * in it is its number of positions (all equal here).
 */
import type { ValueRef } from './graph.ts';
import {
  attentionForward,
  attentionScale,
  attentionWeightLayout,
  mergeHeads,
  rowAxisOf,
  splitHeads,
  swapLastOfHeads,
  type AttentionSpec,
} from './attention.ts';
import { need } from './block-weights.ts';
import { BATCH } from './mlp-layers.ts';
import {
  lossWithGradient,
  startTrainStep,
  type TrainStep,
  type TrainStepOptions,
} from './train-step.ts';

/**
 * Builds the attention block's train step; inputs `x [batch, positions,
 * width]` and targets `y [batch, positions, outputs]`.
 */
export function buildAttentionTrainStep(spec: AttentionSpec, options: TrainStepOptions): TrainStep {
  const {
    g,
    x,
    y,
    weights: w,
    finish,
  } = startTrainStep('attention', options, () => attentionWeightLayout(spec), {
    x: [BATCH, spec.positions, spec.width],
    y: [BATCH, spec.positions, spec.outputSize],
  });
  const f = attentionForward(g, spec, x, w);

  // Rows: every position of every sequence, `[batch·positions, ·]`.
  const rowsOf = (value: ValueRef, width: number) =>
    g.op('Reshape', [value, g.constant([-1, width], 'int64')]);
  const sequencesOf = (rows: ValueRef) =>
    g.op('Reshape', [rows, g.constant([-1, spec.positions, spec.width], 'int64')]);
  const weightGradient = (input: ValueRef, dOut: ValueRef) =>
    g.op('Gemm', [input, dOut], { transA: 1 });
  const rowAxis = g.constant([0], 'int64');
  const biasGradient = (dOut: ValueRef) => g.op('ReduceSum', [dOut, rowAxis], { keepdims: 0 });

  const { loss, dLogits } = lossWithGradient(
    g,
    options.loss,
    rowsOf(f.logits, spec.outputSize),
    rowsOf(y, spec.outputSize),
    spec.outputSize,
  );
  const gradients = new Map<string, ValueRef>();
  gradients.set('Wh', weightGradient(rowsOf(f.h, spec.width), dLogits));
  gradients.set('bh', biasGradient(dLogits));
  // The residual passes dh on to x unchanged; x is data, so only the branch matters.
  const dh = g.op('Gemm', [dLogits, need(w, 'Wh')], { transB: 1 });
  gradients.set('Wo', weightGradient(rowsOf(f.attended, spec.width), dh));
  gradients.set('bo', biasGradient(dh));
  // Split into heads as the forward split (one head: as it is); each head's attention on its own.
  const dAttended = splitHeads(
    g,
    spec,
    sequencesOf(g.op('Gemm', [dh, need(w, 'Wo')], { transB: 1 })),
  );
  const swap = (value: ValueRef) => swapLastOfHeads(g, spec, value);
  const dp = g.op('MatMul', [dAttended, swap(f.v)]);
  const dv = mergeHeads(g, spec, g.op('MatMul', [swap(f.p), dAttended]));
  const rowSum = g.op(
    'ReduceSum',
    [g.op('Mul', [dp, f.p]), g.constant([rowAxisOf(spec)], 'int64')],
    { keepdims: 1 },
  );
  const dScores = g.op('Mul', [
    g.op('Mul', [f.p, g.op('Sub', [dp, rowSum])]),
    g.constant(attentionScale(spec)),
  ]);
  const dq = mergeHeads(g, spec, g.op('MatMul', [dScores, f.k]));
  const dk = mergeHeads(g, spec, g.op('MatMul', [swap(dScores), f.q]));

  const xRows = rowsOf(x, spec.width);
  gradients.set('Wq', weightGradient(xRows, rowsOf(dq, spec.width)));
  gradients.set('Wk', weightGradient(xRows, rowsOf(dk, spec.width)));
  gradients.set('Wv', weightGradient(xRows, rowsOf(dv, spec.width)));

  return finish(loss, gradients);
}
