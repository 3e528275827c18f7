/**
 * Every built-in model behind one door: a spec tagged with its architecture
 * (`mlp`, `conv1d`, `attention`, `cnn`, `pooled-attention`) gives its weight
 * layout, fresh weights, an inference model and a train step.
 *
 * Idea: the train steps of all of them share one contract (inputs `x`, `y`,
 * the optimizer's hyperparameters and the carried tensors; outputs `loss`
 * and `next.*`), so whoever runs them — the program runner, a training node —
 * switches on the architecture once, here, and carries weights without
 * knowing the network. Trade-off: the shapes of `x` and `y` differ by
 * architecture (rows, signals, sequences); the caller still lays its data
 * out to match, which {@link blockInputShape} states.
 */
import { buildAttentionTrainStep } from './attention-train.ts';
import {
  attentionWeightLayout,
  buildAttentionInference,
  initAttentionWeights,
  type AttentionSpec,
} from './attention.ts';
import { buildConv1dTrainStep } from './conv1d-train.ts';
import {
  buildConv1dInference,
  conv1dRowBlock,
  conv1dWeightLayout,
  initConv1dWeights,
  type Conv1dSpec,
} from './conv1d.ts';
import type { GraphTrace } from './graph-trace.ts';
import {
  buildMlpInference,
  buildMlpTrainStep,
  initMlpWeights,
  mlpWeightLayout,
  type MlpSpec,
  type TrainStepOptions,
  type MlpWeights,
  type WeightSlot,
} from './mlp.ts';
import type { TrainStep } from './train-step.ts';
import {
  buildCnnInference,
  cnnRowBlock,
  cnnWeightLayout,
  initCnnWeights,
  type CnnSpec,
} from './cnn.ts';
import { buildCnnTrainStep } from './cnn-train.ts';
import { buildMlpLoss, type MlpLossKind } from './mlp.ts';
import { buildMlpExport, type ExportedModelAbout } from './mlp-export.ts';
import { buildExportGraph, buildLossGraph, type LossGraph } from './block-graphs.ts';
import {
  buildPooledAttentionInference,
  initPooledAttentionWeights,
  pooledAttentionRowBlock,
  pooledAttentionWeightLayout,
  type PooledAttentionSpec,
} from './pooled-attention.ts';
import { buildPooledAttentionTrainStep } from './pooled-attention-train.ts';

/** A built-in model, tagged with its architecture. */
export type ModelBlock =
  | ({ readonly architecture: 'mlp' } & MlpSpec)
  | ({ readonly architecture: 'conv1d' } & Conv1dSpec)
  | ({ readonly architecture: 'attention' } & AttentionSpec)
  | ({ readonly architecture: 'cnn' } & CnnSpec)
  | ({ readonly architecture: 'pooled-attention' } & PooledAttentionSpec);

/** Every architecture a {@link ModelBlock} can name. */
export const blockArchitectures = [
  'mlp',
  'conv1d',
  'attention',
  'cnn',
  'pooled-attention',
] as const;

/** An inference model of any block: `x` in, `logits` and `probabilities` out. */
export interface BlockInference {
  readonly model: Uint8Array;
  readonly graph: GraphTrace;
  readonly inputs: { readonly x: string; readonly weights: Readonly<Record<string, string>> };
  readonly outputs: { readonly logits: string; readonly probabilities: string };
}

function unknown(block: never): never {
  const architecture = (block as { architecture?: unknown }).architecture;
  throw new RangeError(
    `unknown architecture: ${String(architecture)} (expected ${blockArchitectures.join(', ')})`,
  );
}

/** The block's weights, in the order they are fed and carried. */
export function blockWeightLayout(block: ModelBlock): WeightSlot[] {
  switch (block.architecture) {
    case 'mlp':
      return mlpWeightLayout(block);
    case 'conv1d':
      return conv1dWeightLayout(block);
    case 'attention':
      return attentionWeightLayout(block);
    case 'cnn':
      return cnnWeightLayout(block);
    case 'pooled-attention':
      return pooledAttentionWeightLayout(block);
    default:
      return unknown(block);
  }
}

/** Fresh weights drawn from `random` (uniform in [0, 1)): one seed, one set of weights. */
export function initBlockWeights(block: ModelBlock, random: () => number): MlpWeights {
  switch (block.architecture) {
    case 'mlp':
      return initMlpWeights(block, random);
    case 'conv1d':
      return initConv1dWeights(block, random);
    case 'attention':
      return initAttentionWeights(block, random);
    case 'cnn':
      return initCnnWeights(block, random);
    case 'pooled-attention':
      return initPooledAttentionWeights(block, random);
    default:
      return unknown(block);
  }
}

/** The inference model; with `weights`, baked in as the downloadable artifact. */
export function buildBlockInference(block: ModelBlock, weights?: MlpWeights): BlockInference {
  switch (block.architecture) {
    case 'mlp':
      return buildMlpInference(block, weights);
    case 'conv1d':
      return buildConv1dInference(block, weights);
    case 'attention':
      return buildAttentionInference(block, weights);
    case 'cnn':
      return buildCnnInference(block, weights);
    case 'pooled-attention':
      return buildPooledAttentionInference(block, weights);
    default:
      return unknown(block);
  }
}

/** The train step with the given loss and optimizer. */
export function buildBlockTrainStep(block: ModelBlock, options: TrainStepOptions): TrainStep {
  switch (block.architecture) {
    case 'mlp':
      return buildMlpTrainStep(block, options);
    case 'conv1d':
      return buildConv1dTrainStep(block, options);
    case 'attention':
      return buildAttentionTrainStep(block, options);
    case 'cnn':
      return buildCnnTrainStep(block, options);
    case 'pooled-attention':
      return buildPooledAttentionTrainStep(block, options);
    default:
      return unknown(block);
  }
}

/** The shape of one example of `x` (the batch axis left out). */
export function blockInputShape(block: ModelBlock): number[] {
  switch (block.architecture) {
    case 'mlp':
      return [block.inputSize];
    case 'conv1d':
      return [block.channels, block.length];
    case 'attention':
      return [block.positions, block.width];
    case 'cnn':
      return [block.channels, block.height, block.width];
    case 'pooled-attention':
      return [block.channels, block.positions];
    default:
      return unknown(block);
  }
}

/**
 * Blocks a training node trains: those that score whole rows (the
 * per-position attention block is built and checked, not a model kind).
 */
export type TrainableBlock = ModelBlock & {
  readonly architecture: 'mlp' | 'cnn' | 'conv1d' | 'pooled-attention';
};

/** The mean loss of a block's weights on a batch, without an update (a validation loss). */
export function buildBlockLoss(block: TrainableBlock, loss: MlpLossKind): LossGraph {
  switch (block.architecture) {
    case 'mlp':
      return buildMlpLoss(block, loss);
    case 'cnn':
      return buildLossGraph(cnnRowBlock(block), loss);
    case 'conv1d':
      return buildLossGraph(conv1dRowBlock(block), loss);
    case 'pooled-attention':
      return buildLossGraph(pooledAttentionRowBlock(block), loss);
    default:
      return unknown(block);
  }
}

/** The standalone `.onnx` a person downloads, the trained weights baked in. */
export function buildBlockExport(
  block: TrainableBlock,
  weights: MlpWeights,
  about: ExportedModelAbout,
): Uint8Array {
  switch (block.architecture) {
    case 'mlp':
      return buildMlpExport(block, weights, about);
    case 'cnn':
      return buildExportGraph(cnnRowBlock(block), weights, about);
    case 'conv1d':
      return buildExportGraph(conv1dRowBlock(block), weights, about);
    case 'pooled-attention':
      return buildExportGraph(pooledAttentionRowBlock(block), weights, about);
    default:
      return unknown(block);
  }
}
