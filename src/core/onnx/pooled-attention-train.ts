/**
 * The pooled attention block's train step: forward, loss, backward and the
 * optimizer update as one ONNX graph, weights in → updated weights out.
 *
 * Idea: the backward pass walks the forward in reverse with the ops it
 * already uses:
 * - the mean over positions hands each position `dPooled / positions`
 *   (an Expand over the position axis), once the last layer norm's
 *   backward has given `dPooled`;
 * - projections flatten `[batch, positions, ·]` to rows, so each weight's
 *   gradient is one Gemm summed over batch and positions at once; the
 *   feed-forward's ReLU keeps the gradient where its input was positive;
 * - softmax's gradient is `p ⊙ (dp − Σ dp ⊙ p)` along each row, scaled as
 *   the scores were; with several heads, the gradient of the concatenated
 *   heads is split as the forward split them, each head's attention is
 *   differentiated on its own (batched over the heads axis), and the
 *   heads' gradients are merged back before the projections;
 * - each layer norm's backward is in layer-norm.ts; a residual adds the
 *   gradient that went through its sublayer to the one that skipped it;
 * - the per-position embedding's gradient is one batched MatMul per
 *   position (`xₜᵀ · deₜ`), the position axis leading.
 * Trade-off: the loss is the mean over the batch, as every row block's;
 * the backward keeps the forward's attention weights `[batch, positions,
 * positions]` alive, the block's largest activation.
 */
import type { ValueRef } from './graph.ts';
import { need } from './block-weights.ts';
import { layerNormBackward } from './layer-norm.ts';
import { scalar } from './mlp-activations.ts';
import { BATCH } from './mlp-layers.ts';
import { mergeHeads, rowAxisOf, splitHeads, swapLastOfHeads } from './attention.ts';
import {
  pooledAttentionForward,
  pooledAttentionScale,
  pooledAttentionWeightLayout,
  rowsOf,
  sequencesOf,
  type PooledAttentionSpec,
} from './pooled-attention.ts';
import {
  lossWithGradient,
  startTrainStep,
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
  const {
    g,
    x,
    y,
    weights: w,
    finish,
  } = startTrainStep('pooled_attention', options, () => pooledAttentionWeightLayout(spec), {
    x: [BATCH, spec.channels, spec.positions],
    y: [BATCH, spec.outputSize],
  });
  const { positions, width } = spec;
  const f = pooledAttentionForward(g, spec, x, w);
  const { loss, dLogits } = lossWithGradient(g, options.loss, f.logits, y, spec.outputSize);

  const rows = (value: ValueRef) => rowsOf(g, value, width);
  const sequences = (value: ValueRef) => sequencesOf(g, spec, value);
  const weightGradient = (input: ValueRef, dOut: ValueRef) =>
    g.op('Gemm', [input, dOut], { transA: 1 });
  const backThrough = (dOut: ValueRef, weight: string) =>
    g.op('Gemm', [dOut, need(w, weight)], { transB: 1 });
  const rowSum = (value: ValueRef) =>
    g.op('ReduceSum', [value, g.constant([0], 'int64')], { keepdims: 0 });
  const batchAndPositions = g.constant([0, 1], 'int64');
  const zero = scalar(g, 0);

  const gradients = new Map<string, ValueRef>([
    ['head.W', weightGradient(f.pooled.y, dLogits)],
    ['head.b', rowSum(dLogits)],
  ]);
  const last = layerNormBackward(
    g,
    f.pooled,
    need(w, 'norm.g'),
    backThrough(dLogits, 'head.W'),
    [0],
  );
  gradients.set('norm.g', last.dGamma);
  gradients.set('norm.b', last.dBeta);
  // The mean over positions: every position gets 1/positions of the pooled gradient.
  const dPooled = g.op('Mul', [last.dx, scalar(g, 1 / positions)]);
  const dOutput = g.op('Expand', [
    g.op('Unsqueeze', [dPooled, g.constant([1], 'int64')]),
    g.constant([1, positions, width], 'int64'),
  ]);

  // The feed-forward sublayer, back to the attention's output h.
  let dh = dOutput;
  const ff = f.feedForward;
  if (ff !== null) {
    const dOut = rows(dOutput);
    gradients.set('ff.W2', weightGradient(ff.a, dOut));
    gradients.set('ff.b2', rowSum(dOut));
    const dz = g.op('Where', [g.op('Greater', [ff.z, zero]), backThrough(dOut, 'ff.W2'), zero]);
    gradients.set('ff.W1', weightGradient(rows(ff.norm.y), dz));
    gradients.set('ff.b1', rowSum(dz));
    const dNormed = sequences(backThrough(dz, 'ff.W1'));
    const norm = layerNormBackward(g, ff.norm, need(w, 'norm2.g'), dNormed, [0, 1]);
    gradients.set('norm2.g', norm.dGamma);
    gradients.set('norm2.b', norm.dBeta);
    dh = g.op('Add', [dOutput, norm.dx]);
  }

  // The attention sublayer, back to the embedding.
  gradients.set('Wo', weightGradient(rows(f.attended), rows(dh)));
  gradients.set('bo', g.op('ReduceSum', [dh, batchAndPositions], { keepdims: 0 }));
  const dAttended = splitHeads(g, spec, sequences(backThrough(rows(dh), 'Wo')));
  const swap = (value: ValueRef) => swapLastOfHeads(g, spec, value);
  const dp = g.op('MatMul', [dAttended, swap(f.v)]);
  const dv = g.op('MatMul', [swap(f.p), dAttended]);
  const dpAlongP = g.op(
    'ReduceSum',
    [g.op('Mul', [dp, f.p]), g.constant([rowAxisOf(spec)], 'int64')],
    {
      keepdims: 1,
    },
  );
  const dScores = g.op('Mul', [
    g.op('Mul', [f.p, g.op('Sub', [dp, dpAlongP])]),
    g.constant(pooledAttentionScale(spec)),
  ]);
  const merged = (value: ValueRef) => rows(mergeHeads(g, spec, value));
  const dq = merged(g.op('MatMul', [dScores, f.k]));
  const dk = merged(g.op('MatMul', [swap(dScores), f.q]));
  const dvRows = merged(dv);
  const normedRows = rows(f.norm.y);
  gradients.set('Wq', weightGradient(normedRows, dq));
  gradients.set('Wk', weightGradient(normedRows, dk));
  gradients.set('Wv', weightGradient(normedRows, dvRows));
  const dNormed = sequences(
    g.op('Add', [
      g.op('Add', [backThrough(dq, 'Wq'), backThrough(dk, 'Wk')]),
      backThrough(dvRows, 'Wv'),
    ]),
  );
  const norm = layerNormBackward(g, f.norm, need(w, 'norm1.g'), dNormed, [0, 1]);
  gradients.set('norm1.g', norm.dGamma);
  gradients.set('norm1.b', norm.dBeta);
  const dEmbedded = g.op('Add', [dh, norm.dx]);
  gradients.set('embed.b', rowSum(dEmbedded));
  // Per position t: x_tᵀ [channels, batch] · de_t [batch, width].
  gradients.set(
    'embed.W',
    g.op('MatMul', [
      g.op('Transpose', [x], { perm: [2, 1, 0] }),
      g.op('Transpose', [dEmbedded], { perm: [1, 0, 2] }),
    ]),
  );

  return finish(loss, gradients);
}
