import { describe, expect, it } from 'vitest';
import { alignTables } from './align';

describe('alignTables', () => {
  it('merges x columns, leaving undefined where a table has no point', () => {
    const aligned = alignTables<number | null>([
      { x: [0, 2, 4], ys: [[1, null, 3]] },
      { x: [1, 2, 5], ys: [[10, 20, 30]] },
    ]);
    expect(aligned.x).toEqual([0, 1, 2, 4, 5]);
    expect(aligned.ys).toEqual([
      [1, undefined, null, 3, undefined],
      [undefined, 10, 20, undefined, 30],
    ]);
  });

  it('keeps several value columns of one table on the same rows', () => {
    const aligned = alignTables([
      {
        x: [0, 1],
        ys: [
          [1, 2],
          [0, 1],
          [2, 3],
        ],
      },
      { x: [1], ys: [[5]] },
    ]);
    expect(aligned.ys).toEqual([
      [1, 2],
      [0, 1],
      [2, 3],
      [undefined, 5],
    ]);
  });

  it('keeps repeated x inside one table as separate rows', () => {
    const aligned = alignTables([{ x: [0, 1, 1, 2], ys: [[1, 2, 3, 4]] }]);
    expect(aligned.x).toEqual([0, 1, 1, 2]);
    expect(aligned.ys).toEqual([[1, 2, 3, 4]]);
  });

  it('gives empty columns for no tables or empty tables', () => {
    expect(alignTables([])).toEqual({ x: [], ys: [] });
    expect(alignTables([{ x: [], ys: [[]] }])).toEqual({ x: [], ys: [[]] });
  });
});
