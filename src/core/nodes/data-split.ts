/** `data.split`: a seeded shuffle of a dataset into train and test parts. */
import { defineNodeKind } from '../catalog/kind';
import { expectDataset, subset } from '../catalog/values';
import { createRandom, permutation } from '../random';
import { FlowbenchError } from '../errors';

export const dataSplit = defineNodeKind({
  kind: 'data.split',
  title: 'Train/test split',
  category: 'data',
  description: 'Shuffles a dataset with a seed and splits it into a training and a test part.',
  params: {
    test_fraction: {
      type: 'number',
      default: 0.2,
      min: 0.01,
      max: 0.99,
      description: 'Share of the rows that go to the test part.',
    },
    seed: { type: 'int', default: 0, min: 0, description: 'Seed of the shuffle.' },
  },
  inputs: [{ name: 'dataset', type: 'dataset', description: 'The dataset to split.' }],
  outputs: [
    { name: 'train', type: 'dataset', description: 'The training rows.' },
    { name: 'test', type: 'dataset', description: 'The held-out rows.' },
  ],
  execute(ctx) {
    const data = expectDataset(ctx.inputs.dataset, 'dataset');
    const order = permutation(data.count, createRandom(ctx.params.seed));
    const testCount = Math.round(data.count * ctx.params.test_fraction);
    if (testCount === 0 || testCount === data.count)
      throw new FlowbenchError('node-input', {
        problem: `a test fraction of ${ctx.params.test_fraction} leaves one side of ${data.count} rows empty`,
      });
    ctx.emit('test', subset(data, order.subarray(0, testCount), `${data.name}/test`));
    ctx.emit('train', subset(data, order.subarray(testCount), `${data.name}/train`));
    ctx.log(`${data.count - testCount} train rows, ${testCount} test rows`);
    return Promise.resolve();
  },
});
