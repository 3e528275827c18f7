/**
 * `model.conv1d`: declares a 1-D convolutional network over a row — a
 * table's features read in order as a one-channel signal; a training node
 * sizes it from the rows it is given and gives it weights (model-fit.ts).
 */
import { defineNodeKind } from '../catalog/kind';
import type { ModelValue } from '../catalog/values';

export const modelConv1d = defineNodeKind({
  kind: 'model.conv1d',
  version: 1,
  cache: 'pure',
  title: 'Conv1D',
  category: 'model',
  description:
    "A 1-D convolutional network: a row's values in column order as a signal, one conv (padding keeps the length) → ReLU → the mean over the signal, then a linear layer to the classes. Suits rows whose columns are a sequence (samples in time, bins of a spectrum).",
  params: {
    channels: {
      type: 'int',
      default: 16,
      min: 1,
      max: 512,
      description: 'Filters (output channels) of the conv.',
    },
    kernel: {
      type: 'int',
      default: 3,
      min: 1,
      max: 64,
      description: 'Length of the conv kernel, at most the row length.',
    },
  },
  inputs: [],
  outputs: [{ name: 'model', type: 'model', description: 'The untrained architecture.' }],
  execute(ctx) {
    const { channels, kernel } = ctx.params;
    const model: ModelValue = { kind: 'model', architecture: 'conv1d', filters: channels, kernel };
    ctx.emit('model', model);
    return Promise.resolve();
  },
});
