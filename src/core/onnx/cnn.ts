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
import { BATCH, huberLoss, meanSquaredError, softmaxCrossEntropy } from './mlp-layers.ts';
import type { MlpLossKind } from './mlp-layers.ts';
import type { MlpWeights, WeightSlot } from './mlp-spec.ts';
import { initWeights, need, weightRefs } from './block-weights.ts';
import { samePads2d } from './conv2d.ts';
import { EXPORT_INPUT, exportMetadata, type ExportedModelAbout } from './mlp-export.ts';

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

/** A loss graph: `x`, `y` and the weights in, the mean `loss` out. */
export interface CnnLoss {
  readonly model: Uint8Array;
  readonly graph: InferenceModel['graph'];
  readonly inputs: {
    readonly x: string;
    readonly y: string;
    readonly weights: Readonly<Record<string, string>>;
  };
  readonly outputs: { readonly loss: string };
}

/** The mean loss of the weights on a batch (for a validation loss, without an update). */
export function buildCnnLoss(spec: CnnSpec, loss: MlpLossKind): CnnLoss {
  const layout = cnnWeightLayout(spec);
  const g = new TracingGraphBuilder(`cnn_loss_${loss}`);
  const x = g.input('x', 'float32', imageShape(spec));
  const y = g.input('y', 'float32', [BATCH, spec.outputSize]);
  const w = weightRefs(g, layout);
  const { logits } = cnnForward(g, spec, x, w);
  const value =
    loss === 'mse'
      ? meanSquaredError(g, logits, y, 'loss').loss
      : loss === 'huber'
        ? huberLoss(g, logits, y, 'loss').loss
        : softmaxCrossEntropy(g, logits, y, 'loss').loss;
  g.output(value, value.name, 'float32', []);
  return {
    model: g.toModel(),
    graph: g.trace(),
    inputs: {
      x: x.name,
      y: y.name,
      weights: Object.fromEntries(layout.map((s) => [s.name, s.name])),
    },
    outputs: { loss: value.name },
  };
}

/**
 * The standalone `.onnx` a person downloads: images `features [batch,
 * channels, height, width]` in [0, 1] in, `logits` and `probabilities` (a
 * regressor: `prediction`) out, what the classes are in its metadata.
 */
export function buildCnnExport(
  spec: CnnSpec,
  weights: MlpWeights,
  about: ExportedModelAbout,
): Uint8Array {
  const g = new TracingGraphBuilder('flowbench_model');
  const x = g.input(EXPORT_INPUT, 'float32', imageShape(spec));
  const w = weightRefs(g, cnnWeightLayout(spec), weights);
  const shape = [BATCH, spec.outputSize];
  if (about.task === 'regression') {
    const { logits } = cnnForward(g, spec, x, w, 'prediction');
    g.output(logits, 'prediction', 'float32', shape);
  } else {
    const { logits } = cnnForward(g, spec, x, w, 'logits');
    const probabilities = g.op('Softmax', [logits], { axis: 1 }, { name: 'probabilities' });
    g.output(logits, 'logits', 'float32', shape);
    g.output(probabilities, 'probabilities', 'float32', shape);
  }
  const inputSize = spec.channels * spec.height * spec.width;
  return g.toModel('Flowbench', {
    metadataProps: exportMetadata(inputSize, spec.outputSize, about),
  });
}
