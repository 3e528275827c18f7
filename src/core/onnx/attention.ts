/**
 * The self-attention block: a sequence model over `[batch, positions,
 * width]` — multi-head scaled dot-product attention (Q, K, V projections
 * cut into `heads` slices of `d = width / heads`, `softmax(Q·Kᵀ/√d)·V` per
 * head, the heads concatenated, an output projection), a residual
 * connection, and a linear head that scores every position:
 * `[batch, positions, outputs]`. The heads helpers here are shared with the
 * pooled block (pooled-attention.ts).
 *
 * Idea: the smallest piece of a transformer that a flow can train and check
 * in the browser, built like the MLP (spec, weight layout, seeded init,
 * inference and train-step graphs) so the program runner carries it the
 * same way. A causal mask, when asked for, is a constant added to the scores
 * (a large negative number above the diagonal), so a position sees only
 * itself and what came before, and its gradient needs no extra op.
 * Heads split the projections rather than adding weights: the layout is
 * the same for any number of heads, and one head builds exactly the
 * single-head graph (no reshapes).
 * Trade-off: one layer, no layer norm and no positional encoding — the
 * attention is the same for every order of the inputs unless the mask (or
 * the data) breaks the symmetry.
 */
import { finishInference, type InferenceModel } from './inference.ts';
import type { ValueRef } from './graph.ts';
import { TracingGraphBuilder } from './graph-trace.ts';
import { need, uniformWeights, weightRefs } from './block-weights.ts';
import { BATCH } from './mlp-layers.ts';
import { elementCount, type MlpWeights, type WeightSlot } from './mlp-spec.ts';

/** An attention block: `[batch, positions, width] → [batch, positions, outputSize]`. */
export interface AttentionSpec {
  /** Positions per sequence. */
  readonly positions: number;
  /** Width of every position's vector (the model width; also the attention width). */
  readonly width: number;
  readonly outputSize: number;
  /** Each position attends only to itself and earlier positions. */
  readonly causal: boolean;
  /** Attention heads, dividing `width` (absent: 1). */
  readonly heads?: number;
}

/** What splitting a sequence into heads needs of a block's spec. */
export interface HeadsShape {
  readonly positions: number;
  readonly width: number;
  /** Absent: 1. */
  readonly heads?: number;
}

/** The spec's heads: 1 when it names none. */
export const headsOf = (spec: HeadsShape): number => spec.heads ?? 1;

/**
 * Why `heads` cannot split `width`, in words (after "heads"), naming the
 * widths that would fit; null when they divide it.
 */
export function headsProblem(width: number, heads: number): string | null {
  if (width % heads === 0) return null;
  const below = Math.floor(width / heads) * heads;
  const fits = [below, below + heads].filter((w) => w >= heads);
  return `${heads} does not divide the width ${width}: each head takes width / heads of every position's vector, so the width must be a multiple of ${heads} (${fits.join(' or ')})`;
}

/** Throws a RangeError (`<Spec>.heads …`) when the spec's heads are not a positive divisor of its width. */
export function validateHeads(spec: HeadsShape, specName: string): void {
  const heads = headsOf(spec);
  if (!Number.isSafeInteger(heads) || heads < 1)
    throw new RangeError(`${specName}.heads must be a positive integer, got ${heads}`);
  const problem = headsProblem(spec.width, heads);
  if (problem !== null) throw new RangeError(`${specName}.heads ${problem}`);
}

/** Throws a RangeError naming the field when a spec is not a valid block. */
export function validateAttentionSpec(spec: AttentionSpec): void {
  for (const field of ['positions', 'width', 'outputSize'] as const) {
    const v = spec[field];
    if (!Number.isSafeInteger(v) || v < 1)
      throw new RangeError(`AttentionSpec.${field} must be a positive integer, got ${v}`);
  }
  // A guard for specs that come from untyped data (an imported flow, a message).
  if (typeof spec.causal !== 'boolean')
    throw new RangeError(`AttentionSpec.causal must be true or false, got ${String(spec.causal)}`);
  validateHeads(spec, 'AttentionSpec');
}

/** `Wq, Wk, Wv, Wo [width, width]`, `bo [width]`, `Wh [width, outputs]`, `bh [outputs]`. */
export function attentionWeightLayout(spec: AttentionSpec): WeightSlot[] {
  validateAttentionSpec(spec);
  const square = [spec.width, spec.width];
  return [
    { name: 'Wq', dims: square },
    { name: 'Wk', dims: square },
    { name: 'Wv', dims: square },
    { name: 'Wo', dims: square },
    { name: 'bo', dims: [spec.width] },
    { name: 'Wh', dims: [spec.width, spec.outputSize] },
    { name: 'bh', dims: [spec.outputSize] },
  ];
}

/**
 * Fresh weights: every matrix uniform in ±√(6/(fanIn+fanOut)) (Glorot),
 * biases zero; drawn in layout order, row-major, so one seed gives one set.
 */
export function initAttentionWeights(spec: AttentionSpec, random: () => number): MlpWeights {
  const layout = attentionWeightLayout(spec);
  const values: Record<string, Float32Array> = {};
  for (const slot of layout) {
    const [fanIn, fanOut] = slot.dims;
    const count = elementCount(slot.dims);
    values[slot.name] =
      fanIn === undefined || fanOut === undefined
        ? new Float32Array(count)
        : uniformWeights(count, Math.sqrt(6 / (fanIn + fanOut)), random);
  }
  return { layout, values };
}

/** What the backward pass reads from the forward pass. */
export interface AttentionTrace {
  /** The projections split into heads: `[batch, heads, positions, width / heads]` (one head: `[batch, positions, width]`). */
  readonly q: ValueRef;
  readonly k: ValueRef;
  readonly v: ValueRef;
  /** Attention weights, `[batch, heads, positions, positions]` (one head: no heads axis), rows summing to 1. */
  readonly p: ValueRef;
  /** `p·v`, before the output projection. */
  readonly attended: ValueRef;
  /** `x + attended·Wo + bo`, what the head reads. */
  readonly h: ValueRef;
  /** `[batch, positions, outputs]`. */
  readonly logits: ValueRef;
}

/** The score `1/√(width / heads)` that keeps a head's dot products in softmax's useful range. */
export const attentionScale = (spec: AttentionSpec): number =>
  1 / Math.sqrt(spec.width / headsOf(spec));

/** Large enough that exp(score + MASKED − max) is 0 in float32, small enough to stay finite. */
const MASKED = -1e9;

/** The causal mask `[positions, positions]`: 0 on and below the diagonal, {@link MASKED} above. */
export function causalMask(positions: number): Float32Array {
  const mask = new Float32Array(positions * positions);
  for (let i = 0; i < positions; i++)
    for (let j = i + 1; j < positions; j++) mask[i * positions + j] = MASKED;
  return mask;
}

/** Swaps the last two axes of a rank-3 value. */
export const swapLast = (g: TracingGraphBuilder, value: ValueRef): ValueRef =>
  g.op('Transpose', [value], { perm: [0, 2, 1] });

/**
 * `[batch, positions, width]` as heads `[batch, heads, positions, width /
 * heads]`; with one head, the value itself.
 */
export function splitHeads(g: TracingGraphBuilder, spec: HeadsShape, value: ValueRef): ValueRef {
  const heads = headsOf(spec);
  if (heads === 1) return value;
  const shape = g.constant([-1, spec.positions, heads, spec.width / heads], 'int64');
  return g.op('Transpose', [g.op('Reshape', [value, shape])], { perm: [0, 2, 1, 3] });
}

/** Heads `[batch, heads, positions, width / heads]` back as `[batch, positions, width]`. */
export function mergeHeads(g: TracingGraphBuilder, spec: HeadsShape, value: ValueRef): ValueRef {
  if (headsOf(spec) === 1) return value;
  return g.op('Reshape', [
    g.op('Transpose', [value], { perm: [0, 2, 1, 3] }),
    g.constant([-1, spec.positions, spec.width], 'int64'),
  ]);
}

/** Swaps the last two axes of a value split into heads (rank 4), or of one head's (rank 3). */
export function swapLastOfHeads(
  g: TracingGraphBuilder,
  spec: HeadsShape,
  value: ValueRef,
): ValueRef {
  return headsOf(spec) === 1
    ? swapLast(g, value)
    : g.op('Transpose', [value], { perm: [0, 1, 3, 2] });
}

/** The axis a head's attention rows run along: 2, or 3 behind the heads axis. */
export const rowAxisOf = (spec: HeadsShape): number => (headsOf(spec) === 1 ? 2 : 3);

/** `x → attention → + x → head → logits`. */
export function attentionForward(
  g: TracingGraphBuilder,
  spec: AttentionSpec,
  x: ValueRef,
  w: ReadonlyMap<string, ValueRef>,
  logitsName?: string,
): AttentionTrace {
  const q = splitHeads(g, spec, g.op('MatMul', [x, need(w, 'Wq')]));
  const k = splitHeads(g, spec, g.op('MatMul', [x, need(w, 'Wk')]));
  const v = splitHeads(g, spec, g.op('MatMul', [x, need(w, 'Wv')]));
  let scores = g.op('Mul', [
    g.op('MatMul', [q, swapLastOfHeads(g, spec, k)]),
    g.constant(attentionScale(spec)),
  ]);
  if (spec.causal) {
    const mask = g.initializer('causal_mask', causalMask(spec.positions), [
      spec.positions,
      spec.positions,
    ]);
    scores = g.op('Add', [scores, mask]);
  }
  const p = g.op('Softmax', [scores], { axis: -1 });
  const attended = mergeHeads(g, spec, g.op('MatMul', [p, v]));
  const projected = g.op('Add', [g.op('MatMul', [attended, need(w, 'Wo')]), need(w, 'bo')]);
  const h = g.op('Add', [x, projected]);
  const logits = g.op(
    'Add',
    [g.op('MatMul', [h, need(w, 'Wh')]), need(w, 'bh')],
    {},
    logitsName === undefined ? {} : { name: logitsName },
  );
  return { q, k, v, p, attended, h, logits };
}

/** A built attention-block inference model: `x` is `[batch, positions, width]`, both outputs `[batch, positions, outputSize]`. */
export type AttentionInference = InferenceModel;

/** The inference model: weights as inputs, or baked in as initializers when given. */
export function buildAttentionInference(
  spec: AttentionSpec,
  weights?: MlpWeights,
): AttentionInference {
  const layout = attentionWeightLayout(spec);
  const g = new TracingGraphBuilder('attention_inference');
  const x = g.input('x', 'float32', [BATCH, spec.positions, spec.width]);
  const w = weightRefs(g, layout, weights);
  const { logits } = attentionForward(g, spec, x, w, 'logits');
  return finishInference(g, x, logits, [BATCH, spec.positions, spec.outputSize], layout, weights);
}
