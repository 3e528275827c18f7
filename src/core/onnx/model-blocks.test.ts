import { describe, expect, it } from 'vitest';
import { createRandom } from '../random.ts';
import {
  blockInputShape,
  blockWeightLayout,
  buildBlockInference,
  buildBlockTrainStep,
  initBlockWeights,
  type ModelBlock,
} from './model-blocks.ts';

const blocks: ModelBlock[] = [
  { architecture: 'mlp', inputSize: 4, hidden: [8], outputSize: 3, activation: 'relu' },
  { architecture: 'conv1d', channels: 2, length: 16, filters: 4, kernel: 3, outputSize: 3 },
  { architecture: 'attention', positions: 5, width: 6, outputSize: 3, causal: true },
  {
    architecture: 'cnn',
    channels: 1,
    height: 8,
    width: 6,
    filters: 2,
    kernel: 3,
    blocks: 2,
    outputSize: 3,
  },
  {
    architecture: 'pooled-attention',
    channels: 1,
    positions: 4,
    width: 6,
    feedForward: 8,
    outputSize: 3,
  },
];

describe.each(blocks)('the $architecture block', (block) => {
  it('carries its weights first, in layout order, then the optimizer state', () => {
    const layout = blockWeightLayout(block);
    const step = buildBlockTrainStep(block, { optimizer: 'adam', loss: 'softmax_cross_entropy' });
    const weights = step.carried.filter((c) => c.role === 'weight');
    expect(weights.map((c) => [c.weight, c.dims])).toEqual(layout.map((s) => [s.name, s.dims]));
    expect(step.carried.slice(0, layout.length)).toEqual(weights);
    expect(step.carried.filter((c) => c.role === 'first_moment')).toHaveLength(layout.length);
    expect(step.outputs.weights).toEqual(
      Object.fromEntries(layout.map((s) => [s.name, `next.${s.name}`])),
    );
  });

  it('draws the same weights from the same seed, and bakes them into its inference model', () => {
    const a = initBlockWeights(block, createRandom(4));
    const b = initBlockWeights(block, createRandom(4));
    expect(a).toEqual(b);
    expect(initBlockWeights(block, createRandom(5))).not.toEqual(a);
    const baked = buildBlockInference(block, a);
    expect(baked.inputs.weights).toEqual({});
    expect(baked.graph.inputs.map((i) => i.name)).toEqual([baked.inputs.x]);
    const input = baked.graph.inputs[0]?.shape;
    expect(input?.slice(1)).toEqual(blockInputShape(block));
  });
});

describe('block specs', () => {
  it('refuse a conv block with a bad size, naming the field', () => {
    const conv = blocks[1] as ModelBlock & { architecture: 'conv1d' };
    expect(() => blockWeightLayout({ ...conv, filters: 0 })).toThrow(
      'Conv1dSpec.filters must be a positive integer, got 0',
    );
    expect(() => blockWeightLayout({ ...conv, channels: 1.5 })).toThrow(
      'Conv1dSpec.channels must be a positive integer, got 1.5',
    );
    expect(() => blockWeightLayout({ ...conv, kernel: 17 })).toThrow(
      'Conv1dSpec.kernel must be at most the length (16), got 17',
    );
  });

  it('refuse an attention block with a bad size or a non-boolean mask, naming the field', () => {
    const attention = blocks[2] as ModelBlock & { architecture: 'attention' };
    expect(() => blockWeightLayout({ ...attention, positions: -1 })).toThrow(
      'AttentionSpec.positions must be a positive integer, got -1',
    );
    expect(() => blockWeightLayout({ ...attention, causal: 'yes' as unknown as boolean })).toThrow(
      'AttentionSpec.causal must be true or false, got yes',
    );
  });

  it('refuse an unknown architecture and an unknown loss by name', () => {
    const odd = { architecture: 'rnn' } as unknown as ModelBlock;
    expect(() => blockWeightLayout(odd)).toThrow(
      'unknown architecture: rnn (expected mlp, conv1d, attention, cnn, pooled-attention)',
    );
    expect(() =>
      buildBlockTrainStep(blocks[1]!, { optimizer: 'sgd', loss: 'hinge' as 'mse' }),
    ).toThrow('unknown loss: hinge (expected softmax_cross_entropy, mse or huber)');
  });
});
