/**
 * The convolutional network for images: `blocks` times conv → ReLU → 2×2
 * max-pool, then a linear head over the flattened feature maps, taking
 * images `[batch, channels, height, width]`.
 *
 * Idea: built from the same pieces as every block (spec, weight layout,
 * seeded init, inference, loss and train-step graphs — see cnn-train.ts for
 * the backward pass), so the program runner carries its weights as it
 * carries the MLP's. Each conv keeps the image's size (padding 'same'), each
 * pool halves it (an odd side drops its last row or column, as ONNX's
 * floor mode does). Trade-off: every conv has the same number of filters
 * and the head is one linear layer — a small, fixed shape that trains in
 * the browser in seconds, not a general network language.
 */
import { finishInference, type InferenceModel } from './inference.ts';
import type { ValueRef } from './graph.ts';
import { TracingGraphBuilder } from './graph-trace.ts';
import { BATCH } from './mlp-layers.ts';
import type { RowBlock } from './block-graphs.ts';
import type { MlpWeights, WeightSlot } from './mlp-spec.ts';
import { initWeights, need, weightRefs } from './block-weights.ts';
import { samePads2d } from './conv2d.ts';

/** A CNN classifier: `[batch, channels, height, width] → [batch, outputSize]`. */
export interface CnnSpec {
  /** The image's channels (1 gray, 3 colour). */
  readonly channels: number;
  readonly height: number;
  readonly width: number;
  /** Output channels of every conv. */
  readonly filters: number;
  /** Kernel side of every conv; padding 'same'. */
  readonly kernel: number;
  /** conv → ReLU → pool blocks. */
  readonly blocks: number;
  readonly outputSize: number;
}

/** The image side after `blocks` 2×2 pools (floor mode). */
function pooledSide(side: number, blocks: number): number {
  return Math.floor(side / 2 ** blocks);
}

/** Throws a RangeError naming the field when a spec is not a valid network. */
export function validateCnnSpec(spec: CnnSpec): void {
  const fields = ['channels', 'height', 'width', 'filters', 'kernel', 'blocks', 'outputSize'];
  for (const field of fields) {
    const v = spec[field as keyof CnnSpec];
    if (!Number.isSafeInteger(v) || v < 1)
      throw new RangeError(`CnnSpec.${field} must be a positive integer, got ${v}`);
  }
  const side = Math.min(spec.height, spec.width);
  if (pooledSide(side, spec.blocks) < 1)
    throw new RangeError(
      `CnnSpec.blocks must leave at least one pixel after its 2×2 pools: a ${spec.height}×${spec.width} image takes at most ${Math.floor(Math.log2(side))}, got ${spec.blocks}`,
    );
  // The last conv sees the image pooled blocks − 1 times; a kernel larger than that is mostly padding.
  const last = pooledSide(side, spec.blocks - 1);
  if (spec.kernel > last)
    throw new RangeError(
      `CnnSpec.kernel must be at most the smallest side a conv sees (${last}), got ${spec.kernel}`,
    );
}

/** Height and width of the input of block `l` (of the head when `l` is `blocks`). */
export function cnnSides(spec: CnnSpec, l: number): [number, number] {
  return [pooledSide(spec.height, l), pooledSide(spec.width, l)];
}

/** Inputs of the head: the flattened feature maps of the last block. */
export function cnnFeatureSize(spec: CnnSpec): number {
  const [h, w] = cnnSides(spec, spec.blocks);
  return spec.filters * h * w;
}

/** `conv<l>.W [filters, in, k, k]`, `conv<l>.b [filters]` per block; `head.W [features, outputs]`, `head.b`. */
export function cnnWeightLayout(spec: CnnSpec): WeightSlot[] {
  validateCnnSpec(spec);
  const k = spec.kernel;
  const layout: WeightSlot[] = [];
  for (let l = 0; l < spec.blocks; l++) {
    const inChannels = l === 0 ? spec.channels : spec.filters;
    layout.push({ name: `conv${l}.W`, dims: [spec.filters, inChannels, k, k] });
    layout.push({ name: `conv${l}.b`, dims: [spec.filters] });
  }
  layout.push({ name: 'head.W', dims: [cnnFeatureSize(spec), spec.outputSize] });
  layout.push({ name: 'head.b', dims: [spec.outputSize] });
  return layout;
}

/**
 * Fresh weights: each conv uniform in ±√(6/(in·k²)) (He, for ReLU), the head
 * in ±√(6/(features+outputs)) (Glorot), biases zero; drawn in layout order.
 */
export function initCnnWeights(spec: CnnSpec, random: () => number): MlpWeights {
  const limits: Record<string, number> = {
    'head.W': Math.sqrt(6 / (cnnFeatureSize(spec) + spec.outputSize)),
  };
  for (let l = 0; l < spec.blocks; l++) {
    const inChannels = l === 0 ? spec.channels : spec.filters;
    limits[`conv${l}.W`] = Math.sqrt(6 / (inChannels * spec.kernel * spec.kernel));
  }
  return initWeights(cnnWeightLayout(spec), limits, random);
}

/** What the backward pass reads of one block's forward pass. */
export interface CnnBlockTrace {
  /** The block's input, `[batch, in, h, w]`. */
  readonly input: ValueRef;
  /** The conv's output before ReLU. */
  readonly z: ValueRef;
  /** After ReLU. */
  readonly a: ValueRef;
  /** After the pool, `[batch, filters, ⌊h/2⌋, ⌊w/2⌋]`. */
  readonly pooled: ValueRef;
}

export interface CnnTrace {
  readonly blocks: readonly CnnBlockTrace[];
  /** The head's input, `[batch, features]`. */
  readonly flat: ValueRef;
  readonly logits: ValueRef;
}

/** `x → (Conv → ReLU → MaxPool)×blocks → flatten → Gemm → logits`. */
export function cnnForward(
  g: TracingGraphBuilder,
  spec: CnnSpec,
  x: ValueRef,
  w: ReadonlyMap<string, ValueRef>,
  logitsName?: string,
): CnnTrace {
  const blocks: CnnBlockTrace[] = [];
  let h = x;
  for (let l = 0; l < spec.blocks; l++) {
    const z = g.op('Conv', [h, need(w, `conv${l}.W`), need(w, `conv${l}.b`)], {
      kernel_shape: [spec.kernel, spec.kernel],
      pads: samePads2d(spec.kernel),
    });
    const a = g.op('Relu', [z]);
    const pooled = g.op('MaxPool', [a], { kernel_shape: [2, 2], strides: [2, 2] });
    blocks.push({ input: h, z, a, pooled });
    h = pooled;
  }
  const flat = g.op('Reshape', [h, g.constant([0, cnnFeatureSize(spec)], 'int64')]);
  const logits = g.op(
    'Gemm',
    [flat, need(w, 'head.W'), need(w, 'head.b')],
    {},
    logitsName === undefined ? {} : { name: logitsName },
  );
  return { blocks, flat, logits };
}

/** The shape of `x`: `[batch, channels, height, width]`. */
function imageShape(spec: CnnSpec): (number | string)[] {
  return [BATCH, spec.channels, spec.height, spec.width];
}

/** The inference model: weights as inputs, or baked in as initializers when given. */
export function buildCnnInference(spec: CnnSpec, weights?: MlpWeights): InferenceModel {
  const layout = cnnWeightLayout(spec);
  const g = new TracingGraphBuilder('cnn_inference');
  const x = g.input('x', 'float32', imageShape(spec));
  const w = weightRefs(g, layout, weights);
  const { logits } = cnnForward(g, spec, x, w, 'logits');
  return finishInference(g, x, logits, [BATCH, spec.outputSize], layout, weights);
}

/** The CNN as a block the loss graph and the export are built from. */
export function cnnRowBlock(spec: CnnSpec): RowBlock {
  return {
    name: 'cnn',
    rowShape: [spec.channels, spec.height, spec.width],
    outputSize: spec.outputSize,
    layout: cnnWeightLayout(spec),
    forward: (g, x, w, logitsName) => cnnForward(g, spec, x, w, logitsName).logits,
  };
}
