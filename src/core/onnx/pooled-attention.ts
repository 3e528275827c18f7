/**
 * The pooled attention block: a small transformer-style classifier (or
 * regressor) over sequences `[batch, channels, positions]` — a table's row
 * read as `[1, features]`, one position per column.
 *
 * Each position gets its own embedding (`x_t · E_t + e_t`, so a table's
 * columns keep their identity, as a feature tokenizer does), then one
 * pre-norm transformer layer — `h = e + Attn(LN₁(e))`, multi-head scaled
 * dot-product attention with Q, K, V and output projections (each head
 * attends over its own `width / heads` slice of the projections, scaled by
 * `1/√(width / heads)`, and the heads' outputs are concatenated), then
 * `h' = h + FF(LN₂(h))`, a ReLU feed-forward applied to each position
 * (left out when its width is 0) — then the mean over positions, a last
 * layer norm (as pre-norm transformers end with one: the residual stream
 * itself is never normalised) and a linear head to the outputs
 * `[batch, outputSize]`.
 *
 * Idea: the same pieces as every block (spec, weight layout, seeded init,
 * inference, loss and train-step graphs — pooled-attention-train.ts writes
 * the backward pass), so a training node sizes and trains it as it trains
 * the CNN. Rows come channel-major, as the conv1d block takes them, so one
 * dataset feeds either. Heads split the projections rather than adding
 * weights, so a model's weight layout (and its count of parameters) is the
 * same for any number of heads; one head builds exactly the single-head
 * graph, with no reshapes. Trade-off: one layer — attention's cost grows
 * with positions² (and its activations with heads × positions²), so it
 * suits rows of tens of columns or short sequences, not long signals or images.
 */
import { finishInference, type InferenceModel } from './inference.ts';
import type { ValueRef } from './graph.ts';
import { TracingGraphBuilder } from './graph-trace.ts';
import type { RowBlock } from './block-graphs.ts';
import { BATCH } from './mlp-layers.ts';
import type { MlpWeights, WeightSlot } from './mlp-spec.ts';
import { initWeights, need, weightRefs } from './block-weights.ts';
import { headsOf, mergeHeads, splitHeads, swapLastOfHeads, validateHeads } from './attention.ts';
import { layerNorm, type LayerNormTrace } from './layer-norm.ts';

/** A pooled attention block: `[batch, channels, positions] → [batch, outputSize]`. */
export interface PooledAttentionSpec {
  /** Values per position (1 for a table's row). */
  readonly channels: number;
  /** Sequence length (a table's number of feature columns). */
  readonly positions: number;
  /** The model width: every position's embedding, and the attention's. */
  readonly width: number;
  /** Hidden units of the feed-forward sublayer; 0 leaves the sublayer out. */
  readonly feedForward: number;
  readonly outputSize: number;
  /** Attention heads, dividing `width` (absent: 1, as models trained before heads were). */
  readonly heads?: number;
}

/** Throws a RangeError naming the field when a spec is not a valid block. */
export function validatePooledAttentionSpec(spec: PooledAttentionSpec): void {
  for (const field of ['channels', 'positions', 'width', 'outputSize'] as const) {
    const v = spec[field];
    if (!Number.isSafeInteger(v) || v < 1)
      throw new RangeError(`PooledAttentionSpec.${field} must be a positive integer, got ${v}`);
  }
  if (!Number.isSafeInteger(spec.feedForward) || spec.feedForward < 0)
    throw new RangeError(
      `PooledAttentionSpec.feedForward must be 0 or a positive integer, got ${spec.feedForward}`,
    );
  validateHeads(spec, 'PooledAttentionSpec');
}

/**
 * `embed.W [positions, channels, width]`, `embed.b [positions, width]`,
 * `norm1.g`, `norm1.b [width]`, `Wq`, `Wk`, `Wv`, `Wo [width, width]`,
 * `bo [width]`; with a feed-forward, `norm2.g`, `norm2.b [width]`,
 * `ff.W1 [width, feedForward]`, `ff.b1`, `ff.W2 [feedForward, width]`,
 * `ff.b2`; then `norm.g`, `norm.b [width]`, `head.W [width, outputs]`,
 * `head.b [outputs]`.
 */
export function pooledAttentionWeightLayout(spec: PooledAttentionSpec): WeightSlot[] {
  validatePooledAttentionSpec(spec);
  const { channels, positions, width, feedForward, outputSize } = spec;
  const square = [width, width];
  const ff: WeightSlot[] =
    feedForward === 0
      ? []
      : [
          { name: 'norm2.g', dims: [width] },
          { name: 'norm2.b', dims: [width] },
          { name: 'ff.W1', dims: [width, feedForward] },
          { name: 'ff.b1', dims: [feedForward] },
          { name: 'ff.W2', dims: [feedForward, width] },
          { name: 'ff.b2', dims: [width] },
        ];
  return [
    { name: 'embed.W', dims: [positions, channels, width] },
    { name: 'embed.b', dims: [positions, width] },
    { name: 'norm1.g', dims: [width] },
    { name: 'norm1.b', dims: [width] },
    { name: 'Wq', dims: square },
    { name: 'Wk', dims: square },
    { name: 'Wv', dims: square },
    { name: 'Wo', dims: square },
    { name: 'bo', dims: [width] },
    ...ff,
    { name: 'norm.g', dims: [width] },
    { name: 'norm.b', dims: [width] },
    { name: 'head.W', dims: [width, outputSize] },
    { name: 'head.b', dims: [outputSize] },
  ];
}

/**
 * Fresh weights: matrices uniform in ±√(6/(fanIn+fanOut)) (Glorot; the
 * feed-forward's first ±√(6/width), He, for its ReLU), the position
 * embeddings `embed.b` in ±1 (so positions differ from the start), the
 * norms' scales 1, other biases 0; drawn in layout order.
 */
export function initPooledAttentionWeights(
  spec: PooledAttentionSpec,
  random: () => number,
): MlpWeights {
  const { channels, width, feedForward, outputSize } = spec;
  const square = Math.sqrt(3 / width);
  const weights = initWeights(
    pooledAttentionWeightLayout(spec),
    {
      'embed.W': Math.sqrt(6 / (channels + width)),
      'embed.b': 1,
      Wq: square,
      Wk: square,
      Wv: square,
      Wo: square,
      'ff.W1': Math.sqrt(6 / width),
      'ff.W2': Math.sqrt(6 / (feedForward + width)),
      'head.W': Math.sqrt(6 / (width + outputSize)),
    },
    random,
  );
  weights.values['norm1.g']?.fill(1);
  weights.values['norm2.g']?.fill(1);
  weights.values['norm.g']?.fill(1);
  return weights;
}

/** What the backward pass reads of the feed-forward sublayer. */
export interface FeedForwardTrace {
  readonly norm: LayerNormTrace;
  /** `LN₂(h)·W1 + b1` as rows `[batch·positions, feedForward]`, before ReLU. */
  readonly z: ValueRef;
  /** After ReLU. */
  readonly a: ValueRef;
}

/** What the backward pass reads from the forward pass. */
export interface PooledAttentionTrace {
  /** The embedded sequence, `[batch, positions, width]`. */
  readonly embedded: ValueRef;
  readonly norm: LayerNormTrace;
  /** The projections split into heads: `[batch, heads, positions, width / heads]` (one head: `[batch, positions, width]`). */
  readonly q: ValueRef;
  readonly k: ValueRef;
  readonly v: ValueRef;
  /** Attention weights, `[batch, heads, positions, positions]` (one head: no heads axis), rows summing to 1. */
  readonly p: ValueRef;
  /** `p·v`, before the output projection. */
  readonly attended: ValueRef;
  /** The feed-forward sublayer, when there is one. */
  readonly feedForward: FeedForwardTrace | null;
  /** The mean over positions of the layer's output, normalised: `[batch, width]`, what the head reads. */
  readonly pooled: LayerNormTrace;
  readonly logits: ValueRef;
}

/** The score scale `1/√(width / heads)` that keeps a head's dot products in softmax's useful range. */
export const pooledAttentionScale = (spec: PooledAttentionSpec): number =>
  1 / Math.sqrt(spec.width / headsOf(spec));

/** `[batch, positions, ·]` as rows `[batch·positions, size]`. */
export const rowsOf = (g: TracingGraphBuilder, value: ValueRef, size: number): ValueRef =>
  g.op('Reshape', [value, g.constant([-1, size], 'int64')]);

/** Rows `[batch·positions, width]` back as sequences `[batch, positions, width]`. */
export const sequencesOf = (g: TracingGraphBuilder, spec: PooledAttentionSpec, rows: ValueRef) =>
  g.op('Reshape', [rows, g.constant([-1, spec.positions, spec.width], 'int64')]);

/** `x → embed → + Attn(LN₁(·)) → + FF(LN₂(·)) → mean over positions → LN → Gemm → logits`. */
export function pooledAttentionForward(
  g: TracingGraphBuilder,
  spec: PooledAttentionSpec,
  x: ValueRef,
  w: ReadonlyMap<string, ValueRef>,
  logitsName?: string,
): PooledAttentionTrace {
  // [batch, channels, positions] → [positions, batch, channels]: one batched MatMul per position.
  const positionMajor = g.op('Transpose', [x], { perm: [2, 0, 1] });
  const perPosition = g.op('MatMul', [positionMajor, need(w, 'embed.W')]);
  const embedded = g.op('Add', [
    g.op('Transpose', [perPosition], { perm: [1, 0, 2] }),
    need(w, 'embed.b'),
  ]);
  const norm = layerNorm(g, embedded, need(w, 'norm1.g'), need(w, 'norm1.b'));
  const q = splitHeads(g, spec, g.op('MatMul', [norm.y, need(w, 'Wq')]));
  const k = splitHeads(g, spec, g.op('MatMul', [norm.y, need(w, 'Wk')]));
  const v = splitHeads(g, spec, g.op('MatMul', [norm.y, need(w, 'Wv')]));
  const scores = g.op('Mul', [
    g.op('MatMul', [q, swapLastOfHeads(g, spec, k)]),
    g.constant(pooledAttentionScale(spec)),
  ]);
  const p = g.op('Softmax', [scores], { axis: -1 });
  const attended = mergeHeads(g, spec, g.op('MatMul', [p, v]));
  const projected = g.op('Add', [g.op('MatMul', [attended, need(w, 'Wo')]), need(w, 'bo')]);
  let h = g.op('Add', [embedded, projected]);
  let feedForward: FeedForwardTrace | null = null;
  if (spec.feedForward > 0) {
    const ffNorm = layerNorm(g, h, need(w, 'norm2.g'), need(w, 'norm2.b'));
    const z = g.op('Gemm', [rowsOf(g, ffNorm.y, spec.width), need(w, 'ff.W1'), need(w, 'ff.b1')]);
    const a = g.op('Relu', [z]);
    const out = g.op('Gemm', [a, need(w, 'ff.W2'), need(w, 'ff.b2')]);
    h = g.op('Add', [h, sequencesOf(g, spec, out)]);
    feedForward = { norm: ffNorm, z, a };
  }
  const pooled = layerNorm(
    g,
    g.op('ReduceMean', [h], { axes: [1], keepdims: 0 }),
    need(w, 'norm.g'),
    need(w, 'norm.b'),
  );
  const logits = g.op(
    'Gemm',
    [pooled.y, need(w, 'head.W'), need(w, 'head.b')],
    {},
    logitsName === undefined ? {} : { name: logitsName },
  );
  return { embedded, norm, q, k, v, p, attended, feedForward, pooled, logits };
}

/** The inference model: weights as inputs, or baked in as initializers when given. */
export function buildPooledAttentionInference(
  spec: PooledAttentionSpec,
  weights?: MlpWeights,
): InferenceModel {
  const layout = pooledAttentionWeightLayout(spec);
  const g = new TracingGraphBuilder('pooled_attention_inference');
  const x = g.input('x', 'float32', [BATCH, spec.channels, spec.positions]);
  const w = weightRefs(g, layout, weights);
  const { logits } = pooledAttentionForward(g, spec, x, w, 'logits');
  return finishInference(g, x, logits, [BATCH, spec.outputSize], layout, weights);
}

/** The block as one the loss graph and the export are built from. */
export function pooledAttentionRowBlock(spec: PooledAttentionSpec): RowBlock {
  return {
    name: 'pooled_attention',
    rowShape: [spec.channels, spec.positions],
    outputSize: spec.outputSize,
    layout: pooledAttentionWeightLayout(spec),
    forward: (g, x, w, logitsName) => pooledAttentionForward(g, spec, x, w, logitsName).logits,
  };
}
