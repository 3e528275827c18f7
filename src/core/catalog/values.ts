/**
 * The values that travel along `dataset`, `model` and `tensor` edges, with guards that
 * turn a miswired value into a message naming the port.
 */
import type { MlpActivation, MlpWeights } from '../onnx/mlp-spec';
import type { OptimizerState } from '../onnx/optimizer-state';
import type { TensorData, TensorDtype } from '../arrays/dtypes';
import { FlowbenchError } from '../errors';

/**
 * A labelled dataset, row-major. Classification by default (`labels` are
 * class indices); a regression dataset (`task: 'regression'`) has one real
 * target per row in `targets`, `classes` 1 and `labels` all 0.
 */
export interface Dataset {
  readonly kind: 'dataset';
  readonly name: string;
  readonly features: Float32Array;
  readonly labels: Int32Array;
  readonly count: number;
  readonly featureSize: number;
  readonly classes: number;
  /** `classification` when absent. */
  readonly task?: DatasetTask;
  /** Regression targets, one per row. */
  readonly targets?: Float32Array;
  /** What each feature column is (a table's column, or `column=value` for a one-hot category). */
  readonly featureNames?: readonly string[];
  /** What each class index stands for. */
  readonly classNames?: readonly string[];
  /** Standardisation still to fit (`pending`), or fitted and already applied to `features`. */
  readonly standardisation?: Standardisation;
  /**
   * The shape of one row when it is more than a list of features — images:
   * `[channels, height, width]`, row-major, `featureSize` values in all.
   */
  readonly shape?: readonly number[];
}

export type DatasetTask = 'classification' | 'regression';

/**
 * Standardisation of some feature columns, `(x − mean) / std`. It is fitted
 * on the training rows only (data.split, or a trainer given unsplit rows)
 * and travels with the dataset and the trained model, so evaluation applies
 * the same transform to rows the statistics never saw.
 */
export type Standardisation =
  { readonly state: 'pending'; readonly columns: readonly number[] } | FittedStandardisation;

export interface FittedStandardisation {
  readonly state: 'fitted';
  /** The feature columns it applies to; the others pass through. */
  readonly columns: readonly number[];
  readonly mean: readonly number[];
  readonly std: readonly number[];
  /** Rows the statistics came from. */
  readonly rows: number;
}

export interface MlpArchitecture {
  readonly architecture: 'mlp';
  readonly hidden: readonly number[];
  readonly activation: MlpActivation;
}

/** A convolutional network for images: conv → ReLU → 2×2 max-pool blocks, a linear head. */
export interface CnnArchitecture {
  readonly architecture: 'cnn';
  /** Output channels of every conv. */
  readonly filters: number;
  readonly kernel: number;
  readonly blocks: number;
}

/** A 1-D convolution over a row (a signal): conv → ReLU → mean over its length, a linear head. */
export interface Conv1dArchitecture {
  readonly architecture: 'conv1d';
  /** Output channels of the conv. */
  readonly filters: number;
  readonly kernel: number;
}

/**
 * Self-attention over a row's positions (a table's columns, a signal's
 * samples): a per-position embedding, one pre-norm transformer layer
 * (attention, then a feed-forward, each with a residual), the mean over
 * positions, a linear head.
 */
export interface AttentionArchitecture {
  readonly architecture: 'attention';
  /** The model width: each position's embedding and the attention's. */
  readonly width: number;
  /** Hidden units of the feed-forward sublayer; 0: none. */
  readonly feedForward: number;
  /** Attention heads, dividing `width` (absent in models made before heads: one). */
  readonly heads?: number;
}

/** What a `model` edge can carry: each model kind's architecture. */
export type ModelArchitecture =
  MlpArchitecture | CnnArchitecture | Conv1dArchitecture | AttentionArchitecture;

/** A model: an architecture, and once trained, its sizes and weights. */
export type ModelValue = ModelArchitecture & ModelState;

/** What a model knows besides its architecture: once trained, its sizes, weights and data. */
export interface ModelState {
  readonly kind: 'model';
  /** Values in one input row (`featureSize` of its training rows). */
  readonly inputSize?: number;
  /** The shape of one input row when the model takes more than a list (a CNN: `[channels, height, width]`). */
  readonly inputShape?: readonly number[];
  readonly outputSize?: number;
  readonly weights?: MlpWeights;
  /**
   * The optimizer's state when training stopped (absent in a model trained
   * before it was kept): a training fed this model with the same optimizer
   * goes on from it.
   */
  readonly optimizerState?: OptimizerState;
  /** The standardisation its training rows had; evaluation applies it to rows still pending. */
  readonly standardisation?: FittedStandardisation;
  readonly featureNames?: readonly string[];
  readonly classNames?: readonly string[];
}

/**
 * Numbers along a `tensor` edge, row-major, in their own element type: a
 * NumPy int64 array travels as a `BigInt64Array`, exactly, and is converted
 * only where a model input is fed from it (`onnx/tensor-feed.ts`). A
 * sequence in time (a `data.audio` node's samples) is float32,
 * one-dimensional, and says its rate.
 */
export interface TensorValue {
  readonly kind: 'tensor';
  /** Where it came from (a file's name), for messages and logs. */
  readonly name: string;
  /** The element type `data` holds; absent: float32 (what every tensor was before types were kept). */
  readonly dtype?: TensorDtype;
  readonly data: TensorData;
  readonly dims: readonly number[];
  /** Samples per second, for a sequence in time. */
  readonly sampleRate?: number;
}

/** The `kind` tag of a value that travelled along an edge, if it has one. */
function kindOf(value: unknown): unknown {
  return typeof value === 'object' && value !== null
    ? (value as { kind?: unknown }).kind
    : undefined;
}

export function expectDataset(value: unknown, port: string): Dataset {
  if (kindOf(value) === 'dataset') return value as Dataset;
  throw new FlowbenchError('node-input', { problem: `input '${port}' expected a dataset` });
}

export function expectTensor(value: unknown, port: string): TensorValue {
  if (kindOf(value) === 'tensor') return value as TensorValue;
  throw new FlowbenchError('node-input', { problem: `input '${port}' expected a tensor` });
}

export function expectModel(value: unknown, port: string): ModelValue {
  if (kindOf(value) === 'model') return value as ModelValue;
  throw new FlowbenchError('node-input', { problem: `input '${port}' expected a model` });
}

/** `model` if it is an MLP; else an error naming the port and what it is. */
export function expectMlp<M extends ModelValue>(model: M, port: string): M & MlpArchitecture {
  if (model.architecture === 'mlp') return model as M & MlpArchitecture;
  throw new FlowbenchError('node-input', {
    problem: `input '${port}' is a ${model.architecture} model; this node takes an MLP (model.mlp)`,
  });
}

/** A model with its sizes and weights (the output of a training node). */
export type TrainedModel = ModelValue &
  Required<Pick<ModelValue, 'inputSize' | 'outputSize' | 'weights'>>;

export function expectTrainedModel(value: unknown, port: string): TrainedModel {
  const model = expectModel(value, port);
  if (!model.weights || model.inputSize === undefined || model.outputSize === undefined)
    throw new FlowbenchError('node-input', {
      problem: `input '${port}' is a model without weights: connect the output of a training node`,
    });
  return model as TrainedModel;
}

/** What a model trained on `data` keeps of it: its standardisation and names, for evaluation. */
export function carriedFrom(
  data: Dataset,
): Pick<ModelValue, 'standardisation' | 'featureNames' | 'classNames'> {
  const s = data.standardisation;
  return {
    ...(s?.state === 'fitted' ? { standardisation: s } : {}),
    ...(data.featureNames ? { featureNames: data.featureNames } : {}),
    ...(data.classNames ? { classNames: data.classNames } : {}),
  };
}

/** One row of a dataset as a subset, e.g. for a train/test split. */
export function subset(data: Dataset, rows: ArrayLike<number>, name: string): Dataset {
  const features = new Float32Array(rows.length * data.featureSize);
  const labels = new Int32Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    features.set(
      data.features.subarray(row * data.featureSize, (row + 1) * data.featureSize),
      i * data.featureSize,
    );
    labels[i] = data.labels[row]!;
  }
  const targets = data.targets && Float32Array.from(rows, (row) => data.targets![row]!);
  return { ...data, name, features, labels, count: rows.length, ...(targets ? { targets } : {}) };
}
