import { describe, expect, it } from 'vitest';
import type { NodeFile } from '../catalog/kind';
import type { Dataset } from '../catalog/values';
import { FlowbenchError } from '../errors';
import { dataSplit } from './data-split';
import { dataTable } from './data-table';
import { executeKind } from './testing';

const DIGEST = `sha256:${'0'.repeat(64)}`;
const csv = (text: string, name = 'flowers.csv'): NodeFile => ({
  digest: DIGEST,
  name,
  mediaType: 'text/csv',
  bytes: new TextEncoder().encode(text),
});

async function table(text: string, params: Record<string, unknown> = {}): Promise<Dataset> {
  const run = await executeKind(dataTable, {
    params: { file: DIGEST, ...params },
    files: [csv(text)],
  });
  return run.outputs.get('dataset') as Dataset;
}

async function tableError(
  text: string,
  params: Record<string, unknown> = {},
): Promise<FlowbenchError> {
  const error: unknown = await table(text, params).then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof FlowbenchError))
    throw new Error(`expected a FlowbenchError: ${String(error)}`);
  return error;
}

const flowers = [
  'length,width,colour,species',
  '5.1,3.5,red,setosa',
  '4.9,3.0,blue,setosa',
  '6.3,3.3,red,virginica',
  '5.8,2.7,blue,virginica',
  '7.0,3.2,red,versicolor',
  '6.4,3.2,blue,versicolor',
].join('\n');

describe('data.table', () => {
  it('picks the last non-numeric column as the label and one-hot encodes categories', async () => {
    const data = await table(flowers);
    expect(data.task).toBe('classification');
    expect(data.classNames).toEqual(['setosa', 'versicolor', 'virginica']);
    expect(Array.from(data.labels)).toEqual([0, 0, 2, 2, 1, 1]);
    expect(data.featureNames).toEqual(['length', 'width', 'colour=blue', 'colour=red']);
    expect(Array.from(data.features.subarray(0, 4))).toEqual([5.1, 3.5, 0, 1].map(Math.fround));
    // Only the numeric columns are standardised, and only later, on training rows.
    expect(data.standardisation).toEqual({ state: 'pending', columns: [0, 1] });
  });

  it('takes the label and features it is given, and infers regression for a real label', async () => {
    const data = await table(flowers, { label: 'length', features: 'width' });
    expect(data.task).toBe('regression');
    expect(data.classes).toBe(1);
    expect(Array.from(data.targets!)).toEqual([5.1, 4.9, 6.3, 5.8, 7.0, 6.4].map(Math.fround));
    expect(data.featureNames).toEqual(['width']);
  });

  it('lists the columns there are when the label is not one of them', async () => {
    const e = await tableError(flowers, { label: 'kind' });
    expect(e.code).toBe('table-column-missing');
    expect(e.message).toBe(
      "label column 'kind' is not a column of flowers.csv; its columns are: length, width, colour, species",
    );
  });

  it('names the row and column of a word in a column of numbers', async () => {
    const rows = [
      'x,y,k',
      ...Array.from({ length: 20 }, (_, i) => `${i},${i % 3},${i % 2 ? 'a' : 'b'}`),
    ];
    rows[8] = 'seven,1,a';
    const e = await tableError(rows.join('\n'));
    expect(e.code).toBe('table-bad-value');
    expect(e.message).toBe(
      'flowers.csv, row 8, column \'x\': "seven" is not a number, in a column of numbers',
    );
  });

  it('refuses a label with one class', async () => {
    const e = await tableError('x,k\n1,a\n2,a\n3,a\n');
    expect(e.message).toBe(
      "label column 'k' of flowers.csv has one class only (a): a classifier needs two or more",
    );
  });

  it('drops rows with a missing value, fills in means, or fails naming the cell', async () => {
    const text = 'x,c,k\n1,u,a\n,v,b\n3,,a\n5,u,b\n';
    expect((await table(text)).count).toBe(2);
    const filled = await table(text, { missing: 'mean', standardise: false });
    expect(filled.count).toBe(4);
    expect(filled.features[1 * 3]).toBeCloseTo(3); // x's mean
    expect(Array.from(filled.features.subarray(2 * 3 + 1, 3 * 3))).toEqual(
      [2 / 3, 1 / 3].map(Math.fround), // c's shares of u and v
    );
    const e = await tableError(text, { missing: 'error' });
    expect(e.message).toMatch(/^flowers\.csv, row 2, column 'x': the value is missing/);
  });
});

describe('data.split on a table', () => {
  const many = [
    'x,k',
    ...Array.from(
      { length: 100 },
      (_, i) => `${i < 80 ? i : 1000 + i},${i < 80 ? 'common' : 'rare'}`,
    ),
  ].join('\n');

  it('fits the standardisation on the train rows only and applies it to both parts', async () => {
    const data = await table(many);
    const split = await executeKind(dataSplit, { inputs: { dataset: data }, params: { seed: 3 } });
    const train = split.outputs.get('train') as Dataset;
    const test = split.outputs.get('test') as Dataset;
    const stats = train.standardisation;
    if (stats?.state !== 'fitted') throw new Error('expected fitted statistics');
    expect(stats.rows).toBe(train.count);
    expect(test.standardisation).toEqual(stats);
    const trainMean = Array.from(train.features).reduce((a, b) => a + b, 0) / train.count;
    expect(trainMean).toBeCloseTo(0, 5);
    // The test rows were scaled with the train statistics, not their own.
    const testMean = Array.from(test.features).reduce((a, b) => a + b, 0) / test.count;
    expect(Math.abs(testMean)).toBeGreaterThan(1e-3);
    // The raw train values, recovered through the statistics, are train rows only.
    const raw = Array.from(train.features, (v) => v * stats.std[0]! + stats.mean[0]!);
    const rawMean = raw.reduce((a, b) => a + b, 0) / raw.length;
    expect(stats.mean[0]).toBeCloseTo(rawMean, 2);
  });

  it('splits each class in the same proportion', async () => {
    const data = await table(many);
    const split = await executeKind(dataSplit, {
      inputs: { dataset: data },
      params: { test_fraction: 0.25, seed: 1 },
    });
    const test = split.outputs.get('test') as Dataset;
    const rare = Array.from(test.labels).filter(
      (l) => l === data.classNames!.indexOf('rare'),
    ).length;
    expect(test.count).toBe(25);
    expect(rare).toBe(5);
  });

  it('splits a table of 200,000 rows, most of them of one class', async () => {
    // More rows in a class than a function call takes arguments.
    const rows = Array.from({ length: 200_000 }, (_, i) => `${i % 97},${i % 20 ? 'most' : 'few'}`);
    const data = await table(['x,k', ...rows].join('\n'));
    const split = await executeKind(dataSplit, {
      inputs: { dataset: data },
      params: { test_fraction: 0.1, seed: 1 },
    });
    expect((split.outputs.get('test') as Dataset).count).toBe(20_000);
    expect((split.outputs.get('train') as Dataset).count).toBe(180_000);
  });
});
