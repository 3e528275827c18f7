/**
 * `eval.regression`: how close a trained regressor's predictions come to a
 * dataset's real targets — mean absolute error, root mean squared error and
 * R² (1 is perfect, 0 is no better than predicting the mean, below 0 worse).
 * The predictions come from a one-step program over the resident inference
 * model, admitted against the device pool like every evaluation.
 */
import { backendParam } from './backend-param';
import { defineNodeKind } from '../catalog/kind';
import { standardiseLike } from '../catalog/standardise';
import { expectDataset, expectTrainedModel } from '../catalog/values';
import { float32, hostOutput, type Backend } from '../runtime/tensor-runtime';
import { estimateMemory } from '../onnx/memory';
import { buildBlockInference } from '../onnx/model-blocks';
import { batchDims, trainedBlockFor } from './model-fit';
import { component, modelId, outputWeights, readWeights, requestId } from '../programs';
import { FlowbenchError } from '../errors';

/** Regression scores of `predicted` against `actual`. */
export function regressionScores(
  predicted: ArrayLike<number>,
  actual: ArrayLike<number>,
): { mae: number; rmse: number; r2: number } {
  const n = actual.length;
  let absolute = 0;
  let squared = 0;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += actual[i]! / n;
  let total = 0;
  for (let i = 0; i < n; i++) {
    const error = predicted[i]! - actual[i]!;
    absolute += Math.abs(error);
    squared += error * error;
    total += (actual[i]! - mean) ** 2;
  }
  return {
    mae: absolute / Math.max(1, n),
    rmse: Math.sqrt(squared / Math.max(1, n)),
    // A constant target leaves nothing to explain: 1 when every prediction is exact, else 0.
    r2: total > 0 ? 1 - squared / total : squared === 0 ? 1 : 0,
  };
}

export const evalRegression = defineNodeKind({
  kind: 'eval.regression',
  version: 1,
  cache: 'backend',
  title: 'Regression scores',
  category: 'eval',
  description:
    'Runs a trained regressor on a dataset and reports the mean absolute error, the root mean squared error and R².',
  params: { backend: backendParam('Where inference runs') },
  inputs: [
    { name: 'model', type: 'model', description: 'A trained regressor.' },
    { name: 'dataset', type: 'dataset', description: 'Rows with real targets to score on.' },
  ],
  outputs: [
    { name: 'mae', type: 'number', description: 'Mean absolute error.' },
    { name: 'rmse', type: 'number', description: 'Root mean squared error.' },
    { name: 'r2', type: 'number', description: 'Coefficient of determination R².' },
  ],
  async execute(ctx) {
    const model = expectTrainedModel(ctx.inputs.model, 'model');
    const data = standardiseLike(expectDataset(ctx.inputs.dataset, 'dataset'), model);
    const targets = data.targets;
    if (data.task !== 'regression' || !targets)
      throw new FlowbenchError('node-input', {
        problem: `input 'dataset' is a classification dataset (${data.name}): score it with eval.accuracy`,
      });
    const spec = trainedBlockFor(model, data, 'dataset', 1);
    const inference = buildBlockInference(spec);
    const id = modelId(`${ctx.node}/inference`);
    const seen: { ran: Backend | null; predicted: Float32Array | null } = {
      ran: null,
      predicted: null,
    };
    const names = Object.keys(inference.inputs.weights);
    const { backend } = ctx.params;
    const report = await ctx.programs.run({
      node: ctx.node,
      backend,
      models: [
        {
          id,
          label: `${ctx.node} inference`,
          model: inference.model,
          backend,
          residentBytes: estimateMemory(inference.graph, { dims: { batch: 1 } }).constantBytes,
        },
      ],
      requests: [
        {
          id: requestId(ctx.node),
          signal: ctx.signal,
          program: {
            steps: [
              component({
                name: 'weights',
                run: (s) => outputWeights(s, 'weights', model.weights),
              }),
              component({
                name: 'predict',
                models: [id],
                peakBytes: estimateMemory(inference.graph, { dims: { batch: data.count } })
                  .peakBytes,
                async run(sctx) {
                  const session = sctx.session(id);
                  seen.ran = session.backend;
                  const weights = readWeights(sctx, 'weights', names);
                  const feeds = {
                    [inference.inputs.x]: float32(data.features, batchDims(spec, data.count)),
                    ...Object.fromEntries(
                      names.map((n) => [inference.inputs.weights[n]!, weights[n]!]),
                    ),
                  };
                  const out = await session.run(feeds);
                  seen.predicted = Float32Array.from(
                    hostOutput(out, inference.outputs.logits).data,
                  );
                },
              }),
            ],
          },
        },
      ],
    });
    const result = report.results[0]!;
    if (result.status !== 'ok' || seen.predicted === null)
      throw new Error(result.error?.message ?? `evaluation ended ${result.status}`);
    const { mae, rmse, r2 } = regressionScores(seen.predicted, targets);
    ctx.log(
      `${data.count} rows on ${seen.ran ?? 'an unknown backend'}: MAE ${mae.toPrecision(4)}, RMSE ${rmse.toPrecision(4)}, R² ${r2.toFixed(3)}`,
    );
    ctx.emit('mae', mae);
    ctx.emit('rmse', rmse);
    ctx.emit('r2', r2);
  },
});
