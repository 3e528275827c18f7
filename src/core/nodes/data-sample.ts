/**
 * `data.sample`: what to draw from a live source — windows of
 * `context_length` steps to condition on and `prediction_length` steps to
 * predict, `batch_size` at a time. It draws nothing itself: each consumer
 * it feeds opens its own reader under its own flow controller, so the
 * sampling happens where the training loop runs and waits are charged there.
 * Each window carries masks (steps past an episode's end are zero and
 * masked) and its provenance (episode, generation, producer, offset).
 */
import { defineNodeKind } from '../catalog/kind';
import { validateContextWindow } from '../data/context-window';
import { expectLiveSource, type ContextWindows } from '../live/live-source';
import { FlowbenchError } from '../errors';

export const dataSample = defineNodeKind({
  kind: 'data.sample',
  version: 1,
  cache: 'pure',
  title: 'Sample windows',
  category: 'data',
  description:
    'Batches of context windows (context + prediction steps) sampled from a live data source, with masks and provenance, under the flow controller of whoever consumes them.',
  params: {
    context_length: {
      type: 'int',
      default: 1,
      min: 1,
      max: 4096,
      description: 'Steps a window gives to condition on.',
    },
    prediction_length: {
      type: 'int',
      default: 4,
      min: 1,
      max: 4096,
      description: 'Steps after the context a window gives to predict.',
    },
    batch_size: {
      type: 'int',
      default: 32,
      min: 1,
      max: 65_536,
      description: 'Windows per batch.',
    },
    seed: {
      type: 'int',
      default: 0,
      min: 0,
      description: 'Seed of which episodes and offsets are drawn.',
    },
  },
  inputs: [{ name: 'source', type: 'live', description: 'The live data source.' }],
  outputs: [
    {
      name: 'windows',
      type: 'windows',
      description: 'The windows to draw, for a training or evaluation loop.',
    },
  ],
  execute(ctx) {
    const source = expectLiveSource(ctx.inputs.source, 'source');
    const { context_length, prediction_length, batch_size, seed } = ctx.params;
    const window = { contextLength: context_length, predictionLength: prediction_length };
    const issues = validateContextWindow(window);
    if (issues.length > 0)
      throw new FlowbenchError('node-input', {
        problem: issues.map((i) => `param '${i.path}': ${i.message}`).join('\n'),
      });
    const windows: ContextWindows = {
      kind: 'windows',
      source,
      window,
      batchSize: batch_size,
      seed,
    };
    ctx.emit('windows', windows);
    return Promise.resolve();
  },
});
