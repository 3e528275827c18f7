/**
 * `model.attention`: declares a small transformer-style classifier over a
 * row's positions — a table's columns, or a signal's samples; a training
 * node sizes it from the rows it is given and gives it weights
 * (model-fit.ts, the network in onnx/pooled-attention.ts).
 */
import { defineNodeKind } from '../catalog/kind';
import type { ModelValue } from '../catalog/values';
import { FlowbenchError } from '../errors';
import { headsProblem } from '../onnx/attention';

/** What is wrong with `heads` for `width`, naming the widths that fit; null when nothing is. */
function headsFinding(width: number, heads: number): string | null {
  const problem = headsProblem(width, heads);
  return problem === null ? null : `${problem}; or pick heads that divide ${width}`;
}

export const modelAttention = defineNodeKind({
  kind: 'model.attention',
  // 2: param heads.
  version: 2,
  cache: 'pure',
  title: 'Attention',
  category: 'model',
  description:
    "A small transformer over a row's positions (a table's columns in order, or a signal's samples): each position embedded by its own weights, one pre-norm layer — multi-head self-attention (param heads), then a ReLU feed-forward, each with a residual — the mean over positions, then a linear layer to the classes. Its cost grows with the square of the row's length.",
  params: {
    width: {
      type: 'int',
      default: 16,
      min: 1,
      max: 256,
      description: "The model width: each position's embedding, and the attention's.",
    },
    heads: {
      type: 'int',
      default: 1,
      min: 1,
      max: 64,
      description:
        'Attention heads: each attends over its own width / heads slice of every position, so they must divide the width. More heads, the same weights.',
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
  checkParams({ width, heads }) {
    const message = headsFinding(width, heads);
    return message === null ? [] : [{ param: 'heads', message }];
  },
  execute(ctx) {
    const problem = headsFinding(ctx.params.width, ctx.params.heads);
    if (problem !== null)
      throw new FlowbenchError('node-input', { problem: `param 'heads': ${problem}` });
    const model: ModelValue = {
      kind: 'model',
      architecture: 'attention',
      width: ctx.params.width,
      feedForward: ctx.params.feed_forward,
      heads: ctx.params.heads,
    };
    ctx.emit('model', model);
    return Promise.resolve();
  },
});
