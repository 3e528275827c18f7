/**
 * `eval.accuracy`: the share of a dataset's rows a trained classifier gets
 * right. The evaluation is a one-step program over a resident inference
 * model that takes the weights as inputs, run by the engine's program runner
 * (admitted against the device pool like training).
 */
import { backendParam } from './backend-param';
import { defineNodeKind, NodeInputError } from '../catalog/kind';
import { expectDataset, expectTrainedModel } from '../catalog/values';
import { float32, type Backend } from '../engine/runtime';
import { estimateMemory } from '../onnx/memory';
import { buildMlpInference } from '../onnx/mlp';
import {
  component,
  mlpEvaluateStep,
  modelId,
  outputWeights,
  requestId,
  type ComponentStep,
} from '../programs';

export const evalAccuracy = defineNodeKind({
  kind: 'eval.accuracy',
  title: 'Accuracy',
  category: 'eval',
  description:
    'Runs a trained classifier on a dataset and reports the share of rows it gets right.',
  params: {
    backend: backendParam('Where inference runs'),
  },
  inputs: [
    { name: 'model', type: 'model', description: 'A trained model.' },
    { name: 'dataset', type: 'dataset', description: 'Rows to evaluate on.' },
  ],
  outputs: [{ name: 'accuracy', type: 'number', description: 'Correct predictions / rows.' }],
  async execute(ctx) {
    const model = expectTrainedModel(ctx.inputs.model, 'model');
    const data = expectDataset(ctx.inputs.dataset, 'dataset');
    if (data.featureSize !== model.inputSize || data.classes !== model.outputSize)
      throw new NodeInputError(
        `the model expects ${model.inputSize} features and ${model.outputSize} classes; the dataset has ${data.featureSize} and ${data.classes}`,
      );
    const spec = {
      inputSize: model.inputSize,
      hidden: model.hidden,
      outputSize: model.outputSize,
      activation: model.activation,
    };
    const { backend } = ctx.params;
    const inference = buildMlpInference(spec);
    const id = modelId(`${ctx.node}/inference`);
    const seen: { ran: Backend | null } = { ran: null };
    const evaluate = mlpEvaluateStep({
      name: 'eval',
      model: id,
      inference,
      weights: 'weights',
      x: float32(data.features, [data.count, data.featureSize]),
      labels: data.labels,
    });
    const watched: ComponentStep = {
      ...evaluate,
      run(sctx) {
        seen.ran = sctx.session(id).backend;
        return evaluate.run(sctx);
      },
    };
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
              watched,
            ],
          },
        },
      ],
    });
    const result = report.results[0]!;
    const accuracy = result.metrics['eval.accuracy']?.[0];
    if (result.status !== 'ok' || accuracy === undefined)
      throw new Error(result.error?.message ?? `evaluation ended ${result.status}`);
    const ran = seen.ran ?? 'an unknown backend';
    ctx.log(`${Math.round(accuracy * data.count)} of ${data.count} rows right on ${ran}`);
    if (backend === 'prefer-webgpu' && ran !== 'webgpu')
      ctx.log('preferred webgpu, but this engine has no WebGPU adapter: ran on wasm');
    ctx.emit('accuracy', accuracy);
  },
});
