/**
 * The trained MLP as a standalone inference `.onnx` a person takes anywhere.
 *
 * Idea: the file must answer for raw rows, as a table gives them, so the
 * dataset's standardisation is applied inside the graph (`Sub` the mean,
 * `Div` by the std, over every feature column: 0 and 1 for the columns it
 * leaves alone) rather than folded into the first layer's weights — the
 * trained weights stay bit for bit what Flowbench trained, and the
 * statistics stay readable in the file. Names read as a user expects them:
 * input `features` `[batch, F]`; a classifier answers `logits` and
 * `probabilities`, a regressor `prediction`. What the columns and classes
 * are travels in `metadata_props`. Trade-off: two elementwise ops per call,
 * negligible next to the first Gemm.
 */
import { TracingGraphBuilder } from './graph-trace.ts';
import { BATCH, declareWeights, forward } from './mlp-layers.ts';
import { mlpWeightLayout, type MlpSpec, type MlpWeights } from './mlp-spec.ts';

/** The input of every exported model: raw feature rows, float32 `[batch, F]`. */
export const EXPORT_INPUT = 'features';

/** What a trained model knows about the rows it was trained on. */
export interface ExportedModelAbout {
  readonly task: 'classification' | 'regression';
  /** Per standardised column: its index, mean and std (the others pass through). */
  readonly standardisation?: {
    readonly columns: readonly number[];
    readonly mean: readonly number[];
    readonly std: readonly number[];
  };
  readonly featureNames?: readonly string[];
  readonly classNames?: readonly string[];
  /** Extra `metadata_props` (the node that trained it, the app's version …). */
  readonly metadata?: Readonly<Record<string, string>>;
}

/** The `metadata_props` key each exported fact is stored under. */
export const exportMetadataKeys = {
  task: 'flowbench.task',
  featureNames: 'flowbench.feature_names',
  classNames: 'flowbench.class_names',
  standardisation: 'flowbench.standardisation',
} as const;

/**
 * Builds the standalone inference model of `spec` with its trained
 * `weights` as initializers, taking raw (unstandardised) feature rows.
 */
export function buildMlpExport(
  spec: MlpSpec,
  weights: MlpWeights,
  about: ExportedModelAbout,
): Uint8Array {
  const g = new TracingGraphBuilder('flowbench_model');
  const features = g.input(EXPORT_INPUT, 'float32', [BATCH, spec.inputSize]);
  const x = standardised(g, features, [spec.inputSize], about.standardisation);
  const layers = declareWeights(g, mlpWeightLayout(spec), weights);
  const shape = [BATCH, spec.outputSize];
  if (about.task === 'regression') {
    const { logits } = forward(g, spec, x, layers, 'prediction');
    g.output(logits, 'prediction', 'float32', shape);
  } else {
    const { logits } = forward(g, spec, x, layers, 'logits');
    const probabilities = g.op('Softmax', [logits], { axis: 1 }, { name: 'probabilities' });
    g.output(logits, 'logits', 'float32', shape);
    g.output(probabilities, 'probabilities', 'float32', shape);
  }
  return g.toModel('Flowbench', {
    metadataProps: exportMetadata(spec.inputSize, spec.outputSize, about),
  });
}

/**
 * `(features − mean) / std` over every column, as graph ops; `features`
 * itself when nothing is standardised. `rowShape` is one row's shape (the
 * batch axis left out): column `c` is the row's `c`-th value, row-major.
 */
export function standardised(
  g: TracingGraphBuilder,
  features: ReturnType<TracingGraphBuilder['input']>,
  rowShape: readonly number[],
  stats: ExportedModelAbout['standardisation'],
) {
  if (stats === undefined || stats.columns.length === 0) return features;
  const size = rowShape.reduce((a, b) => a * b, 1);
  const mean = new Float32Array(size);
  const std = new Float32Array(size).fill(1);
  stats.columns.forEach((c, i) => {
    mean[c] = stats.mean[i]!;
    std[c] = stats.std[i]!;
  });
  const centred = g.op('Sub', [features, g.initializer('standardisation_mean', mean, rowShape)]);
  return g.op(
    'Div',
    [centred, g.initializer('standardisation_std', std, rowShape)],
    {},
    {
      name: 'standardised',
    },
  );
}

/** The `metadata_props` of an exported model with `inputSize` features and `outputSize` outputs. */
export function exportMetadata(
  inputSize: number,
  outputSize: number,
  about: ExportedModelAbout,
): Record<string, string> {
  const keys = exportMetadataKeys;
  return {
    ...about.metadata,
    [keys.task]: about.task,
    [keys.featureNames]: JSON.stringify(
      about.featureNames ?? Array.from({ length: inputSize }, (_, i) => `feature_${i}`),
    ),
    ...(about.task === 'classification'
      ? {
          [keys.classNames]: JSON.stringify(
            about.classNames ?? Array.from({ length: outputSize }, (_, i) => String(i)),
          ),
        }
      : {}),
    ...(about.standardisation
      ? { [keys.standardisation]: JSON.stringify(about.standardisation) }
      : {}),
  };
}
