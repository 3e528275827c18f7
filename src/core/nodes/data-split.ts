/**
 * `data.split`: a seeded shuffle of a dataset into train and test parts,
 * stratified for classification (each class split in the same proportion,
 * so a rare class is not left out of one side by chance). A dataset whose
 * standardisation is pending has it fitted here, on the train part only,
 * and applied to both parts: the test rows never inform the statistics.
 */
import { defineNodeKind } from '../catalog/kind';
import { applyStandardisation, fitStandardisation } from '../catalog/standardise';
import { expectDataset, subset, type Dataset } from '../catalog/values';
import { createRandom, permutation, type Random } from '../random';
import { FlowbenchError } from '../errors';

/** Test rows and train rows, each class split in proportion (rounded per class). */
function stratifiedRows(
  data: Dataset,
  fraction: number,
  random: Random,
): { test: number[]; train: number[] } {
  const order = permutation(data.count, random);
  const byClass = new Map<number, number[]>();
  for (const row of order) {
    const label = data.labels[row]!;
    const rows = byClass.get(label) ?? [];
    rows.push(row);
    byClass.set(label, rows);
  }
  let test: number[] = [];
  let train: number[] = [];
  // Concatenated, not pushed as spread arguments: a class can hold more rows than a call takes.
  for (const [, rows] of [...byClass].sort(([a], [b]) => a - b)) {
    const n = Math.round(rows.length * fraction);
    test = test.concat(rows.slice(0, n));
    train = train.concat(rows.slice(n));
  }
  // Classes in a shuffled order within each part, not one block per class.
  const shuffle = (rows: number[]) => Array.from(permutation(rows.length, random), (i) => rows[i]!);
  return { test: shuffle(test), train: shuffle(train) };
}

export const dataSplit = defineNodeKind({
  kind: 'data.split',
  version: 1,
  cache: 'pure',
  title: 'Train/test split',
  category: 'data',
  description:
    'Shuffles a dataset with a seed and splits it into a training and a test part (stratified by class for classification). Standardisation still to fit is fitted on the training part.',
  params: {
    test_fraction: {
      type: 'number',
      default: 0.2,
      min: 0.01,
      max: 0.99,
      description: 'Share of the rows that go to the test part.',
    },
    stratify: {
      type: 'boolean',
      default: true,
      description: 'Split each class in the same proportion (classification datasets).',
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
    const { test_fraction, stratify, seed } = ctx.params;
    const random = createRandom(seed);
    let testRows: ArrayLike<number>;
    let trainRows: ArrayLike<number>;
    if (stratify && data.task !== 'regression') {
      const rows = stratifiedRows(data, test_fraction, random);
      testRows = rows.test;
      trainRows = rows.train;
    } else {
      const order = permutation(data.count, random);
      const testCount = Math.round(data.count * test_fraction);
      testRows = order.subarray(0, testCount);
      trainRows = order.subarray(testCount);
    }
    if (testRows.length === 0 || trainRows.length === 0)
      throw new FlowbenchError('node-input', {
        problem: `a test fraction of ${test_fraction} leaves one side of ${data.count} rows empty`,
      });
    let test = subset(data, testRows, `${data.name}/test`);
    let train = subset(data, trainRows, `${data.name}/train`);
    const pending = data.standardisation;
    if (pending?.state === 'pending') {
      const stats = fitStandardisation(train, pending.columns);
      train = applyStandardisation(train, stats);
      test = applyStandardisation(test, stats);
      ctx.log(`standardised ${pending.columns.length} features on the ${train.count} train rows`);
    }
    ctx.emit('test', test);
    ctx.emit('train', train);
    ctx.log(`${train.count} train rows, ${test.count} test rows`);
    return Promise.resolve();
  },
});
