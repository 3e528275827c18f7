/**
 * The 2-D convolution block: a classifier over images `[batch, channels,
 * height, width]` — one Conv (a `k×k` kernel, padding 'same', so the output
 * keeps the image's size), ReLU, a global average over the image, and a
 * linear head to the logits.
 *
 * Idea: the 1-D conv block (conv1d.ts) one axis up, built from the same
 * pieces — spec, weight layout, seeded init, inference and train-step graphs
 * — so the program runner carries its weights as it carries every block's.
 * Trade-off: one conv layer and a global pool, not stacked conv → ReLU →
 * pool blocks; stacking needs the gradient through a Conv's input and a
 * pooling window, which this block's backward pass does not have yet.
 */
import { finishInference, type InferenceModel } from './inference.ts';
import type { ValueRef } from './graph.ts';
import { TracingGraphBuilder } from './graph-trace.ts';
import { BATCH } from './mlp-layers.ts';
import type { MlpWeights, WeightSlot } from './mlp-spec.ts';
import { initWeights, need, weightRefs } from './block-weights.ts';
import { samePads } from './conv1d.ts';

/** A conv2d block classifier: `[batch, channels, height, width] → [batch, outputSize]`. */
export interface Conv2dSpec {
  readonly channels: number;
  readonly height: number;
  readonly width: number;
  /** Output channels of the Conv (features after pooling). */
  readonly filters: number;
  /** Kernel side; padding 'same' on both axes. */
  readonly kernel: number;
  readonly outputSize: number;
}

/** Throws a RangeError naming the field when a spec is not a valid block. */
export function validateConv2dSpec(spec: Conv2dSpec): void {
  const fields = ['channels', 'height', 'width', 'filters', 'kernel', 'outputSize'] as const;
  for (const field of fields) {
    const v = spec[field];
    if (!Number.isSafeInteger(v) || v < 1)
      throw new RangeError(`Conv2dSpec.${field} must be a positive integer, got ${v}`);
  }
  if (spec.kernel > Math.min(spec.height, spec.width))
    throw new RangeError(
      `Conv2dSpec.kernel must be at most the image's smaller side (${Math.min(spec.height, spec.width)}), got ${spec.kernel}`,
    );
}

/** Padding 'same' on both axes, as ONNX wants it: `[top, left, bottom, right]`. */
export function samePads2d(kernel: number): [number, number, number, number] {
  const [before, after] = samePads(kernel);
  return [before, before, after, after];
}

/** `conv.W [filters, channels, k, k]`, `conv.b [filters]`, `head.W [filters, outputs]`, `head.b`. */
export function conv2dWeightLayout(spec: Conv2dSpec): WeightSlot[] {
  validateConv2dSpec(spec);
  return [
    { name: 'conv.W', dims: [spec.filters, spec.channels, spec.kernel, spec.kernel] },
    { name: 'conv.b', dims: [spec.filters] },
    { name: 'head.W', dims: [spec.filters, spec.outputSize] },
    { name: 'head.b', dims: [spec.outputSize] },
  ];
}

/**
 * Fresh weights: the conv uniform in ±√(6/(channels·k²)) (He, for ReLU),
 * the head in ±√(6/(filters+outputs)) (Glorot), biases zero; drawn in
 * layout order, row-major, so one seed gives one set of weights.
 */
export function initConv2dWeights(spec: Conv2dSpec, random: () => number): MlpWeights {
  return initWeights(
    conv2dWeightLayout(spec),
    {
      'conv.W': Math.sqrt(6 / (spec.channels * spec.kernel * spec.kernel)),
      'head.W': Math.sqrt(6 / (spec.filters + spec.outputSize)),
    },
    random,
  );
}

/** What the backward pass reads from the forward pass. */
export interface Conv2dTrace {
  /** The Conv's output before ReLU, `[batch, filters, height, width]`. */
  readonly z: ValueRef;
  /** The pooled features, `[batch, filters]`. */
  readonly pooled: ValueRef;
  readonly logits: ValueRef;
}

/** `x → Conv → ReLU → mean over the image → Gemm → logits`. */
export function conv2dForward(
  g: TracingGraphBuilder,
  spec: Conv2dSpec,
  x: ValueRef,
  w: ReadonlyMap<string, ValueRef>,
  logitsName?: string,
): Conv2dTrace {
  const z = g.op('Conv', [x, need(w, 'conv.W'), need(w, 'conv.b')], {
    kernel_shape: [spec.kernel, spec.kernel],
    pads: samePads2d(spec.kernel),
  });
  const pooled = g.op('ReduceMean', [g.op('Relu', [z])], { axes: [2, 3], keepdims: 0 });
  const logits = g.op(
    'Gemm',
    [pooled, need(w, 'head.W'), need(w, 'head.b')],
    {},
    logitsName === undefined ? {} : { name: logitsName },
  );
  return { z, pooled, logits };
}

/** The inference model: weights as inputs, or baked in as initializers when given. */
export function buildConv2dInference(spec: Conv2dSpec, weights?: MlpWeights): InferenceModel {
  const layout = conv2dWeightLayout(spec);
  const g = new TracingGraphBuilder('conv2d_inference');
  const x = g.input('x', 'float32', [BATCH, spec.channels, spec.height, spec.width]);
  const w = weightRefs(g, layout, weights);
  const { logits } = conv2dForward(g, spec, x, w, 'logits');
  return finishInference(g, x, logits, [BATCH, spec.outputSize], layout, weights);
}
