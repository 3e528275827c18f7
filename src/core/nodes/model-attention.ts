/**
 * `model.attention`: declares a small transformer-style classifier over a
 * row's positions — a table's columns, or a signal's samples; a training
 * node sizes it from the rows it is given and gives it weights
 * (model-fit.ts, the network in onnx/pooled-attention.ts).
 */
import { defineNodeKind } from '../catalog/kind';
import type { ModelValue } from '../catalog/values';

export const modelAttention = defineNodeKind({
  kind: 'model.attention',
  version: 1,
  cache: 'pure',
  title: 'Attention',
  category: 'model',
  description:
    "A small transformer over a row's positions (a table's columns in order, or a signal's samples): each position embedded by its own weights, one pre-norm layer — single-head self-attention, then a ReLU feed-forward, each with a residual — the mean over positions, then a linear layer to the classes. Its cost grows with the square of the row's length.",
  params: {
    width: {
      type: 'int',
      default: 16,
      min: 1,
      max: 256,
      description: "The model width: each position's embedding, and the attention's.",
    },
    feed_forward: {
      type: 'int',
      default: 32,
      min: 0,
      max: 1024,
      description: 'Hidden units of the feed-forward after the attention; 0 leaves it out.',
    },
  },
  inputs: [],
  outputs: [{ name: 'model', type: 'model', description: 'The untrained architecture.' }],
  execute(ctx) {
    const model: ModelValue = {
      kind: 'model',
      architecture: 'attention',
      width: ctx.params.width,
      feedForward: ctx.params.feed_forward,
    };
    ctx.emit('model', model);
    return Promise.resolve();
  },
});
