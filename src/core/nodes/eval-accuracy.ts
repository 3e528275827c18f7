/**
 * `eval.accuracy`: the share of a dataset's rows a trained classifier gets
 * right. The evaluation is a one-step program over a resident inference
 * model that takes the weights as inputs, run by the engine's program runner
 * (admitted against the device pool like training). With `requests` > 1 the
 * rows are split into that many requests over the same resident model, which
 * the runner interleaves; the accuracy is the sum of their correct rows.
 * Which class each row was taken for is kept as a confusion matrix, an
 * artifact of the run that the run page draws as a heat map.
 */
import { backendParam } from './backend-param';
import { defineNodeKind } from '../catalog/kind';
import { standardiseLike } from '../catalog/standardise';
import { expectDataset, expectTrainedModel } from '../catalog/values';
import { float32, type Backend } from '../runtime/tensor-runtime';
import { buildBlockInference } from '../onnx/model-blocks';
import {
  component,
  mlpEvaluateStep,
  mlpInferenceModel,
  outputWeights,
  requestId,
  type ComponentStep,
} from '../programs';
import { batchDims, trainedBlockFor } from './model-fit';
import { classIndices, CONFUSION_MEDIA_TYPE, ConfusionMatrix } from '../catalog/confusion';

export const evalAccuracy = defineNodeKind({
  kind: 'eval.accuracy',
  version: 1,
  cache: 'backend',
  title: 'Accuracy',
  category: 'eval',
  description:
    'Runs a trained classifier on a dataset and reports the share of rows it gets right.',
  params: {
    backend: backendParam('Where inference runs'),
    requests: {
      type: 'int',
      default: 1,
      min: 1,
      max: 64,
      description:
        'Requests the rows are split into, each a program over the one resident model; the runner interleaves them (and a parity check compares that with running them one by one).',
    },
  },
  inputs: [
    { name: 'model', type: 'model', description: 'A trained model.' },
    { name: 'dataset', type: 'dataset', description: 'Rows to evaluate on.' },
  ],
  outputs: [{ name: 'accuracy', type: 'number', description: 'Correct predictions / rows.' }],
  async execute(ctx) {
    const model = expectTrainedModel(ctx.inputs.model, 'model');
    const data = standardiseLike(expectDataset(ctx.inputs.dataset, 'dataset'), model);
    const spec = trainedBlockFor(model, data, 'dataset');
    const { backend, requests } = ctx.params;
    const inference = buildBlockInference(spec);
    const resident = mlpInferenceModel(ctx.node, inference, backend);
    const id = resident.id;
    const seen: { ran: Backend | null } = { ran: null };
    const shards = shardRows(data.count, requests);
    const report = await ctx.programs.run({
      node: ctx.node,
      backend,
      models: [resident],
      // One request per shard of rows, all over the one resident inference model.
      requests: shards.map(({ from, rows }, i) => {
        const evaluate = mlpEvaluateStep({
          name: 'eval',
          model: id,
          inference,
          weights: 'weights',
          x: float32(
            data.features.subarray(from * data.featureSize, (from + rows) * data.featureSize),
            batchDims(spec, rows),
          ),
          labels: data.labels.subarray(from, from + rows),
        });
        const watched: ComponentStep = {
          ...evaluate,
          run(sctx) {
            seen.ran = sctx.session(id).backend;
            return evaluate.run(sctx);
          },
        };
        return {
          id: requestId(shards.length === 1 ? ctx.node : `${ctx.node}#${i + 1}`),
          signal: ctx.signal,
          program: {
            steps: [
              component({
                name: 'weights',
                run: (s) => outputWeights(s, 'weights', model.weights),
              }),
              watched,
            ],
          },
        };
      }),
    });
    let correct = 0;
    const confusion = new ConfusionMatrix(
      data.classNames ?? model.classNames ?? classIndices(data.classes),
    );
    report.results.forEach((result, i) => {
      const right = result.outputs['eval.correct'];
      const scores = result.outputs['eval.probabilities'];
      if (result.status !== 'ok' || typeof right !== 'number')
        throw new Error(result.error?.message ?? `evaluation ended ${result.status}`);
      correct += right;
      const { from, rows } = shards[i]!;
      if (scores !== undefined && typeof scores !== 'number')
        confusion.add(scores.data, data.labels.subarray(from, from + rows));
    });
    ctx.artifact('confusion-matrix', confusion.toBytes(), CONFUSION_MEDIA_TYPE);
    const accuracy = correct / Math.max(1, data.count);
    const ran = seen.ran ?? 'an unknown backend';
    const over = shards.length === 1 ? '' : ` (${shards.length} requests over one resident model)`;
    ctx.log(`${correct} of ${data.count} rows right on ${ran}${over}`);
    if (backend === 'prefer-webgpu' && ran !== 'webgpu')
      ctx.log('preferred webgpu, but this engine has no WebGPU adapter: ran on wasm');
    ctx.emit('accuracy', accuracy);
  },
});

/** `count` rows in `requests` contiguous shards as even as can be (none empty). */
export function shardRows(
  count: number,
  requests: number,
): { readonly from: number; readonly rows: number }[] {
  const n = Math.max(1, Math.min(requests, count));
  return Array.from({ length: n }, (_, i) => {
    const from = Math.floor((i * count) / n);
    return { from, rows: Math.floor(((i + 1) * count) / n) - from };
  });
}
