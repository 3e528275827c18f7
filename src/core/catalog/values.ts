/**
 * The values that travel along `dataset` and `model` edges, with guards that
 * turn a miswired value into a message naming the port.
 */
import type { MlpActivation, MlpWeights } from '../onnx/mlp-spec';
import { FlowbenchError } from '../errors';

/** A labelled classification dataset, row-major. */
export interface Dataset {
  readonly kind: 'dataset';
  readonly name: string;
  readonly features: Float32Array;
  readonly labels: Int32Array;
  readonly count: number;
  readonly featureSize: number;
  readonly classes: number;
}

export interface MlpArchitecture {
  readonly architecture: 'mlp';
  readonly hidden: readonly number[];
  readonly activation: MlpActivation;
}

/** A model: an architecture, and once trained, its sizes and weights. */
export interface ModelValue extends MlpArchitecture {
  readonly kind: 'model';
  readonly inputSize?: number;
  readonly outputSize?: number;
  readonly weights?: MlpWeights;
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

export function expectModel(value: unknown, port: string): ModelValue {
  if (kindOf(value) === 'model') return value as ModelValue;
  throw new FlowbenchError('node-input', { problem: `input '${port}' expected a model` });
}

export function expectTrainedModel(value: unknown, port: string): Required<ModelValue> {
  const model = expectModel(value, port);
  if (!model.weights || model.inputSize === undefined || model.outputSize === undefined)
    throw new FlowbenchError('node-input', {
      problem: `input '${port}' is a model without weights: connect the output of a training node`,
    });
  return model as Required<ModelValue>;
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
  return { ...data, name, features, labels, count: rows.length };
}
