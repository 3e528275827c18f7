/** `eval.accuracy`: the share of a dataset's rows a trained classifier gets right. */
import { defineNodeKind, NodeInputError } from '../catalog/kind';
import { expectDataset, expectTrainedModel } from '../catalog/values';
import { float32, nodeBackends } from '../engine/runtime';
import { buildMlpInference } from '../onnx/mlp';

export const evalAccuracy = defineNodeKind({
  kind: 'eval.accuracy',
  title: 'Accuracy',
  category: 'eval',
  description:
    'Runs a trained classifier on a dataset and reports the share of rows it gets right.',
  params: {
    backend: {
      type: 'enum',
      options: nodeBackends,
      default: 'auto',
      description:
        'Where inference runs: auto follows the run; webgpu requires it; prefer-webgpu falls back to wasm.',
    },
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
    const inference = buildMlpInference(spec, model.weights);
    const session = await ctx.runtime.createSession(inference.model, ctx.params.backend);
    let correct = 0;
    try {
      const out = await session.run({
        [inference.inputs.x]: float32(data.features, [data.count, data.featureSize]),
      });
      const logits = out[inference.outputs.logits]!.data as Float32Array;
      for (let row = 0; row < data.count; row++) {
        let best = 0;
        for (let c = 1; c < data.classes; c++)
          if (logits[row * data.classes + c]! > logits[row * data.classes + best]!) best = c;
        if (best === data.labels[row]) correct++;
      }
    } finally {
      await session.release();
    }
    const accuracy = correct / data.count;
    ctx.log(`${correct} of ${data.count} rows right on ${session.backend}`);
    if (ctx.params.backend === 'prefer-webgpu' && session.backend !== 'webgpu')
      ctx.log('preferred webgpu, but this engine has no WebGPU adapter: ran on wasm');
    ctx.emit('accuracy', accuracy);
  },
});
