import { describe, expect, it } from 'vitest';
import type { Dataset } from '../catalog/values';
import { createRandom } from '../random';
import { classifierBatches } from './classifier-batches';

const data: Dataset = {
  kind: 'dataset',
  name: 'rows',
  features: Float32Array.from({ length: 20 }, (_, i) => i),
  labels: Int32Array.from({ length: 10 }, (_, i) => i % 2),
  count: 10,
  featureSize: 2,
  classes: 2,
};

describe('classifierBatches', () => {
  it('gives each step the same batch whoever asked before (a parity check asks twice)', () => {
    const first = classifierBatches(data, 3, () => createRandom(5));
    const once = Array.from({ length: 12 }, (_, i) => first.batch(i).x.data.slice());
    // Ask again from the start, and out of order: the same rows per index.
    expect(Array.from({ length: 12 }, (_, i) => first.batch(i).x.data.slice())).toEqual(once);
    const second = classifierBatches(data, 3, () => createRandom(5));
    expect(second.batch(7).x.data).toEqual(once[7]);
    expect(second.batch(2).x.data).toEqual(once[2]);
  });

  it('walks a fresh shuffle each epoch, one-hot targets matching the rows', () => {
    const batches = classifierBatches(data, 3, () => createRandom(1));
    // 3 batches of 3 per epoch of 10 rows: the rows of one epoch never repeat.
    const rows = [0, 1, 2].flatMap((i) =>
      [...batches.batch(i).x.data].filter((_, k) => k % 2 === 0),
    );
    expect(new Set(rows).size).toBe(9);
    const { x, y } = batches.batch(4);
    expect(x.dims).toEqual([3, 2]);
    expect(y.dims).toEqual([3, 2]);
    for (let r = 0; r < 3; r++) {
      const row = x.data[r * 2]! / 2;
      expect(y.data[r * 2 + (row % 2)]).toBe(1);
    }
    expect(classifierBatches(data, 64, () => createRandom(1)).size).toBe(10);
  });

  it('clears the one-hot targets of the batch before when it reuses its buffers', () => {
    const batches = classifierBatches(data, 3, () => createRandom(2));
    batches.batch(0);
    const { x, y } = batches.batch(1);
    // Exactly one 1 per row, and it is the class of that row's features.
    expect([...y.data].filter((v) => v === 1)).toHaveLength(3);
    expect([...y.data].filter((v) => v !== 0 && v !== 1)).toHaveLength(0);
    for (let r = 0; r < 3; r++) expect(y.data[r * 2 + ((x.data[r * 2]! / 2) % 2)]).toBe(1);
  });

  it('writes a batch into the buffers it is given where they fit, the same rows as into its own', () => {
    const batches = classifierBatches(data, 3, () => createRandom(3));
    const own = batches.batch(5);
    const expected = { x: own.x.data.slice(), y: own.y.data.slice() };
    const into = { x: new Float32Array(6), y: new Float32Array(6).fill(1) };
    const written = batches.batch(5, into);
    expect(written.x.data).toBe(into.x);
    expect(written.y.data).toBe(into.y);
    expect(written.x.dims).toEqual([3, 2]);
    expect(into.x).toEqual(expected.x);
    // Its targets cleared first: only the one-hot classes are 1.
    expect(into.y).toEqual(expected.y);
    // Its own buffers were left as they were.
    expect(own.x.data).toEqual(expected.x);
    // Buffers of another size are not written: the batch comes in its own.
    const small = { x: new Float32Array(2), y: new Float32Array(2) };
    expect(batches.batch(5, small).x.data).toBe(own.x.data);
    expect([...small.x]).toEqual([0, 0]);
  });
});
