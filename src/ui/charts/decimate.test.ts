import { describe, expect, it } from 'vitest';
import { decimate, type ChartPoint } from './decimate';

/** A series with value `values[i]` at step `i`. */
function series(values: readonly number[]): ChartPoint[] {
  return values.map((v, i) => [i, v, 1_700_000_000 + i] as const);
}

describe('decimate', () => {
  it('passes a series shorter than 2 × buckets through unchanged', () => {
    const points = series([3, 1, 4, 1, 5]);
    expect(decimate(points, 3)).toEqual({ x: [0, 1, 2, 3, 4], y: [3, 1, 4, 1, 5], nonFinite: 0 });
  });

  it('passes an empty series through', () => {
    expect(decimate([], 100)).toEqual({ x: [], y: [], nonFinite: 0 });
  });

  it("keeps each bucket's min and max in step order, and the last point", () => {
    // Two buckets of five steps: [0..4] and [5..9] (step 10 falls in the last bucket too).
    const values = [5, 9, 2, 6, 7, 4, 3, 8, 1, 5, 6];
    const { x, y } = decimate(series(values), 2);
    expect(x).toEqual([1, 2, 7, 8, 10]);
    expect(y).toEqual([9, 2, 8, 1, 6]);
  });

  it('keeps a one-step spike that an average would hide', () => {
    const values = Array.from({ length: 10_000 }, (_, i) => (i === 4321 ? 1e6 : 1));
    const { x, y } = decimate(series(values), 50);
    expect(y).toContain(1e6);
    expect(x[y.indexOf(1e6)]).toBe(4321);
  });

  it('does not repeat the last point when it is already a kept extreme', () => {
    const { x } = decimate(series([1, 2, 3, 4, 5, 6, 7, 8]), 2);
    expect(x).toEqual([0, 3, 4, 7]);
  });

  it('bounds the output by 2 × buckets + 1 whatever the series length', () => {
    for (const length of [1_000, 10_000, 100_000]) {
      const values = Array.from({ length }, (_, i) => Math.sin(i) * Math.exp(-i / length));
      const { x, y } = decimate(series(values), 300);
      expect(x.length).toBe(y.length);
      expect(x.length).toBeLessThanOrEqual(2 * 300 + 1);
      expect(x.length).toBeGreaterThan(300);
      expect(x.at(-1)).toBe(length - 1);
      expect(x).toEqual([...x].sort((a, b) => a - b));
    }
  });

  it('maps non-finite values to null gaps and counts them (short series)', () => {
    const { y, nonFinite } = decimate(series([1, NaN, Infinity, 2, -Infinity]), 10);
    expect(y).toEqual([1, null, null, 2, null]);
    expect(nonFinite).toBe(3);
  });

  it('counts every non-finite value and keeps a gap where a bucket has no finite value', () => {
    // Twenty steps, four buckets of five: the run diverges at step 12.
    const values = Array.from({ length: 20 }, (_, i) => (i < 12 ? 10 - i / 2 : NaN));
    const { x, y, nonFinite } = decimate(series(values), 4);
    expect(nonFinite).toBe(8);
    // Bucket [10..14] keeps its finite extremes; [15..19] keeps one gap; the
    // last point (step 19) ends the line in a gap.
    expect(x).toEqual([0, 4, 5, 9, 10, 11, 15, 19]);
    expect(y).toEqual([10, 8, 7.5, 5.5, 5, 4.5, null, null]);
  });

  it('ignores non-finite values when choosing extremes', () => {
    const { x, y } = decimate(series([1, NaN, 3, 2, Infinity, 0, 2, 2]), 2);
    expect(x).toEqual([0, 2, 5, 6, 7]);
    expect(y).toEqual([1, 3, 0, 2, 2]);
  });
});
