/**
 * `model.cnn`: declares a convolutional network for images; a training node
 * sizes it from the images it is given and gives it weights (model-fit.ts).
 */
import { defineNodeKind } from '../catalog/kind';
import type { ModelValue } from '../catalog/values';

export const modelCnn = defineNodeKind({
  kind: 'model.cnn',
  version: 1,
  cache: 'pure',
  title: 'CNN',
  category: 'model',
  description:
    'A convolutional network for images (from data.images): blocks of conv → ReLU → 2×2 max-pool, then a linear layer to the classes. Its input size comes from the images it is trained on.',
  params: {
    channels: {
      type: 'int',
      default: 8,
      min: 1,
      max: 256,
      description: 'Filters (output channels) of every conv.',
    },
    kernel: {
      type: 'int',
      default: 3,
      min: 1,
      max: 11,
      description: 'Side of each conv kernel (padding keeps the image size).',
    },
    blocks: {
      type: 'int',
      default: 2,
      min: 1,
      max: 6,
      description: 'conv → ReLU → pool blocks; each pool halves the image.',
    },
  },
  inputs: [],
  outputs: [{ name: 'model', type: 'model', description: 'The untrained architecture.' }],
  execute(ctx) {
    const { channels, kernel, blocks } = ctx.params;
    const model: ModelValue = {
      kind: 'model',
      architecture: 'cnn',
      filters: channels,
      kernel,
      blocks,
    };
    ctx.emit('model', model);
    return Promise.resolve();
  },
});
