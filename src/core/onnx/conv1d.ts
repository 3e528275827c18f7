/**
 * The 1-D convolution block: a classifier over signals `[batch, channels,
 * length]` — one Conv (kernel `k`, padding 'same', so the output keeps the
 * input's length), ReLU, a global average over the length, and a linear
 * head to the logits.
 *
 * Idea: the smallest network that sees local shape (a kernel sliding along
 * the signal) rather than single samples, built from the same pieces as the
 * MLP — spec, weight layout, seeded init, inference and train-step graphs —
 * so the program runner carries its weights the same way. Trade-off: one
 * conv layer only; its backward pass needs no gradient for the input, which
 * keeps the train step to two extra Convs-worth of ops.
 */
import { finishInference, type InferenceModel } from './inference.ts';
import type { ValueRef } from './graph.ts';
import { TracingGraphBuilder } from './graph-trace.ts';
import type { RowBlock } from './block-graphs.ts';
import { BATCH } from './mlp-layers.ts';
import type { MlpWeights, WeightSlot } from './mlp-spec.ts';
import { initWeights, need, weightRefs } from './block-weights.ts';

/** A conv block classifier: `[batch, channels, length] → [batch, outputSize]`. */
export interface Conv1dSpec {
  readonly channels: number;
  readonly length: number;
  /** Output channels of the Conv (features after pooling). */
  readonly filters: number;
  /** Kernel width; padding 'same' (`⌊(k−1)/2⌋` before, the rest after). */
  readonly kernel: number;
  readonly outputSize: number;
}

/** Throws a RangeError naming the field when a spec is not a valid block. */
export function validateConv1dSpec(spec: Conv1dSpec): void {
  for (const field of ['channels', 'length', 'filters', 'kernel', 'outputSize'] as const) {
    const v = spec[field];
    if (!Number.isSafeInteger(v) || v < 1)
      throw new RangeError(`Conv1dSpec.${field} must be a positive integer, got ${v}`);
  }
  if (spec.kernel > spec.length)
    throw new RangeError(
      `Conv1dSpec.kernel must be at most the length (${spec.length}), got ${spec.kernel}`,
    );
}

/** Padding 'same' as explicit `[before, after]`. */
export function samePads(kernel: number): [number, number] {
  const before = Math.floor((kernel - 1) / 2);
  return [before, kernel - 1 - before];
}

/** `conv.W [filters, channels, kernel]`, `conv.b [filters]`, `head.W [filters, outputs]`, `head.b`. */
export function conv1dWeightLayout(spec: Conv1dSpec): WeightSlot[] {
  validateConv1dSpec(spec);
  return [
    { name: 'conv.W', dims: [spec.filters, spec.channels, spec.kernel] },
    { name: 'conv.b', dims: [spec.filters] },
    { name: 'head.W', dims: [spec.filters, spec.outputSize] },
    { name: 'head.b', dims: [spec.outputSize] },
  ];
}

/**
 * Fresh weights: the conv uniform in ±√(6/(channels·kernel)) (He, for ReLU),
 * the head in ±√(6/(filters+outputs)) (Glorot), biases zero; drawn in
 * layout order, row-major, so one seed gives one set of weights.
 */
export function initConv1dWeights(spec: Conv1dSpec, random: () => number): MlpWeights {
  return initWeights(
    conv1dWeightLayout(spec),
    {
      'conv.W': Math.sqrt(6 / (spec.channels * spec.kernel)),
      'head.W': Math.sqrt(6 / (spec.filters + spec.outputSize)),
    },
    random,
  );
}

/** What the backward pass reads from the forward pass. */
export interface Conv1dTrace {
  /** The Conv's output before ReLU, `[batch, filters, length]`. */
  readonly z: ValueRef;
  /** The pooled features, `[batch, filters]`. */
  readonly pooled: ValueRef;
  readonly logits: ValueRef;
}

/** `x → Conv → ReLU → mean over length → Gemm → logits`. */
export function conv1dForward(
  g: TracingGraphBuilder,
  spec: Conv1dSpec,
  x: ValueRef,
  w: ReadonlyMap<string, ValueRef>,
  logitsName?: string,
): Conv1dTrace {
  const z = g.op('Conv', [x, need(w, 'conv.W'), need(w, 'conv.b')], {
    kernel_shape: [spec.kernel],
    pads: samePads(spec.kernel),
  });
  const pooled = g.op('ReduceMean', [g.op('Relu', [z])], { axes: [2], keepdims: 0 });
  const logits = g.op(
    'Gemm',
    [pooled, need(w, 'head.W'), need(w, 'head.b')],
    {},
    logitsName === undefined ? {} : { name: logitsName },
  );
  return { z, pooled, logits };
}

/** A built conv-block inference model: `x` is `[batch, channels, length]`, both outputs `[batch, outputSize]`. */
export type Conv1dInference = InferenceModel;

/** The inference model: weights as inputs, or baked in as initializers when given. */
export function buildConv1dInference(spec: Conv1dSpec, weights?: MlpWeights): Conv1dInference {
  const layout = conv1dWeightLayout(spec);
  const g = new TracingGraphBuilder('conv1d_inference');
  const x = g.input('x', 'float32', [BATCH, spec.channels, spec.length]);
  const w = weightRefs(g, layout, weights);
  const { logits } = conv1dForward(g, spec, x, w, 'logits');
  return finishInference(g, x, logits, [BATCH, spec.outputSize], layout, weights);
}

/** The conv1d block as a block the loss graph and the export are built from. */
export function conv1dRowBlock(spec: Conv1dSpec): RowBlock {
  return {
    name: 'conv1d',
    rowShape: [spec.channels, spec.length],
    outputSize: spec.outputSize,
    layout: conv1dWeightLayout(spec),
    forward: (g, x, w, logitsName) => conv1dForward(g, spec, x, w, logitsName).logits,
  };
}
