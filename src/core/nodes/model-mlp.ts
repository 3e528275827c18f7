/** `model.mlp`: declares a multi-layer perceptron; a training node gives it weights. */
import { defineNodeKind } from '../catalog/kind';
import type { ModelValue } from '../catalog/values';
import { mlpActivations } from '../onnx/mlp-spec';

export const modelMlp = defineNodeKind({
  kind: 'model.mlp',
  version: 1,
  cache: 'pure',
  title: 'MLP',
  category: 'model',
  description:
    'A multi-layer perceptron. Its input and output sizes come from the dataset it is trained on.',
  params: {
    hidden: { type: 'int', default: 32, min: 1, max: 4096, description: 'Units per hidden layer.' },
    layers: { type: 'int', default: 2, min: 0, max: 16, description: 'Number of hidden layers.' },
    activation: {
      type: 'enum',
      options: mlpActivations,
      default: 'relu',
      description: 'Activation after each hidden layer (gelu: the tanh approximation).',
    },
  },
  inputs: [],
  outputs: [{ name: 'model', type: 'model', description: 'The untrained architecture.' }],
  execute(ctx) {
    const { hidden, layers, activation } = ctx.params;
    const model: ModelValue = {
      kind: 'model',
      architecture: 'mlp',
      hidden: Array.from({ length: layers }, () => hidden),
      activation,
    };
    ctx.emit('model', model);
    return Promise.resolve();
  },
});
