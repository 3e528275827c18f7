/**
 * The pooled attention block's train step: forward, loss, backward and the
 * optimizer update as one ONNX graph, weights in → updated weights out.
 *
 * Idea: the backward pass walks the forward in reverse with the ops it
 * already uses:
 * - the mean over positions hands each position `dPooled / positions`
 *   (an Expand over the position axis);
 * - projections flatten `[batch, positions, ·]` to rows, so each weight's
 *   gradient is one Gemm summed over batch and positions at once;
 * - softmax's gradient is `p ⊙ (dp − Σ dp ⊙ p)` along each row, scaled as
 *   the scores were;
 * - the layer norm's backward is in layer-norm.ts; the residual adds its
 *   gradient to the one that skipped it;
 * - the per-position embedding's gradient is one batched MatMul per
 *   position (`xₜᵀ · deₜ`), the position axis leading.
 * Trade-off: the loss is the mean over the batch, as every row block's;
 * the backward keeps the forward's attention weights `[batch, positions,
 * positions]` alive, the block's largest activation.
 */
import type { ValueRef } from './graph.ts';
import { TracingGraphBuilder } from './graph-trace.ts';
import { swapLast } from './attention.ts';
import { need, weightRefs } from './block-weights.ts';
import { layerNormBackward } from './layer-norm.ts';
import { scalar } from './mlp-activations.ts';
import { BATCH } from './mlp-layers.ts';
import { declareOptimizer } from './mlp-optim.ts';
import {
  pooledAttentionForward,
  pooledAttentionScale,
  pooledAttentionWeightLayout,
  type PooledAttentionSpec,
} from './pooled-attention.ts';
import {
  checkLossKind,
  finishTrainStep,
  lossWithGradient,
  type TrainStep,
  type TrainStepOptions,
} from './train-step.ts';

/**
 * Builds the block's train step; inputs `x [batch, channels, positions]` and
 * `y [batch, outputs]`, the loss averaged over the batch.
 */
export function buildPooledAttentionTrainStep(
  spec: PooledAttentionSpec,
  options: TrainStepOptions,
): TrainStep {
  checkLossKind(options.loss);
  const layout = pooledAttentionWeightLayout(spec);
  const { positions, width } = spec;
  const g = new TracingGraphBuilder(
    `pooled_attention_train_step_${options.optimizer}_${options.loss}`,
  );
  const x = g.input('x', 'float32', [BATCH, spec.channels, positions]);
  const y = g.input('y', 'float32', [BATCH, spec.outputSize]);
  const w = weightRefs(g, layout);
  const optimizer = declareOptimizer(g, options.optimizer, layout);
  const f = pooledAttentionForward(g, spec, x, w);
  const { loss, dLogits } = lossWithGradient(g, options.loss, f.logits, y, spec.outputSize);

  // Rows: every position of every sequence, `[batch·positions, width]`.
  const rowsOf = (value: ValueRef) => g.op('Reshape', [value, g.constant([-1, width], 'int64')]);
  const sequencesOf = (rows: ValueRef) =>
    g.op('Reshape', [rows, g.constant([-1, positions, width], 'int64')]);
  const weightGradient = (input: ValueRef, dOut: ValueRef) =>
    g.op('Gemm', [rowsOf(input), rowsOf(dOut)], { transA: 1 });
  const backThrough = (dOut: ValueRef, weight: string) =>
    g.op('Gemm', [rowsOf(dOut), need(w, weight)], { transB: 1 });
  const batchAndPositions = g.constant([0, 1], 'int64');

  const gradients = new Map<string, ValueRef>([
    ['head.W', g.op('Gemm', [f.pooled, dLogits], { transA: 1 })],
    ['head.b', g.op('ReduceSum', [dLogits, g.constant([0], 'int64')], { keepdims: 0 })],
  ]);
  // The mean over positions: every position gets 1/positions of the pooled gradient.
  const dPooled = g.op('Mul', [
    g.op('Gemm', [dLogits, need(w, 'head.W')], { transB: 1 }),
    scalar(g, 1 / positions),
  ]);
  const dh = g.op('Expand', [
    g.op('Unsqueeze', [dPooled, g.constant([1], 'int64')]),
    g.constant([1, positions, width], 'int64'),
  ]);
  gradients.set('Wo', weightGradient(f.attended, dh));
  gradients.set('bo', g.op('ReduceSum', [dh, batchAndPositions], { keepdims: 0 }));
  const dAttended = sequencesOf(backThrough(dh, 'Wo'));

  const dp = g.op('MatMul', [dAttended, swapLast(g, f.v)]);
  const dv = g.op('MatMul', [swapLast(g, f.p), dAttended]);
  const rowSum = g.op('ReduceSum', [g.op('Mul', [dp, f.p]), g.constant([2], 'int64')], {
    keepdims: 1,
  });
  const dScores = g.op('Mul', [
    g.op('Mul', [f.p, g.op('Sub', [dp, rowSum])]),
    g.constant(pooledAttentionScale(spec)),
  ]);
  const dq = g.op('MatMul', [dScores, f.k]);
  const dk = g.op('MatMul', [swapLast(g, dScores), f.q]);
  gradients.set('Wq', weightGradient(f.norm.y, dq));
  gradients.set('Wk', weightGradient(f.norm.y, dk));
  gradients.set('Wv', weightGradient(f.norm.y, dv));

  const dNormed = sequencesOf(
    g.op('Add', [
      g.op('Add', [backThrough(dq, 'Wq'), backThrough(dk, 'Wk')]),
      backThrough(dv, 'Wv'),
    ]),
  );
  const norm = layerNormBackward(g, f.norm, need(w, 'norm.g'), dNormed, [0, 1]);
  gradients.set('norm.g', norm.dGamma);
  gradients.set('norm.b', norm.dBeta);
  // The residual: the embedding's gradient is what skipped the attention plus what went through it.
  const dEmbedded = g.op('Add', [dh, norm.dx]);
  gradients.set(
    'embed.b',
    g.op('ReduceSum', [dEmbedded, g.constant([0], 'int64')], { keepdims: 0 }),
  );
  // Per position t: x_tᵀ [channels, batch] · de_t [batch, width].
  gradients.set(
    'embed.W',
    g.op('MatMul', [
      g.op('Transpose', [x], { perm: [2, 1, 0] }),
      g.op('Transpose', [dEmbedded], { perm: [1, 0, 2] }),
    ]),
  );

  return finishTrainStep(g, {
    layout,
    weights: w,
    gradients,
    optimizer,
    x,
    y,
    loss,
    emitGradients: options.emitGradients === true,
  });
}
