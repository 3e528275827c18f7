import { describe, expect, it } from 'vitest';
import { decimate, decimateBand } from './decimate';

/** A series with value `values[i]` at x = `i`, as columns. */
function series(values: readonly number[]): [Float64Array, Float64Array] {
  return [Float64Array.from(values, (_, i) => i), Float64Array.from(values)];
}

describe('decimate', () => {
  it('passes a series shorter than 2 × buckets through unchanged', () => {
    expect(decimate(...series([3, 1, 4, 1, 5]), 3)).toEqual({
      x: [0, 1, 2, 3, 4],
      y: [3, 1, 4, 1, 5],
      nonFinite: 0,
      marks: [],
    });
  });

  it('passes an empty series through', () => {
    expect(decimate(...series([]), 100)).toEqual({ x: [], y: [], nonFinite: 0, marks: [] });
  });

  it("keeps each bucket's min and max in x order, and the last point", () => {
    // Two buckets of five steps: [0..4] and [5..9] (step 10 falls in the last bucket too).
    const values = [5, 9, 2, 6, 7, 4, 3, 8, 1, 5, 6];
    const { x, y } = decimate(...series(values), 2);
    expect(x).toEqual([1, 2, 7, 8, 10]);
    expect(y).toEqual([9, 2, 8, 1, 6]);
  });

  it('keeps a one-step spike that an average would hide', () => {
    const values = Array.from({ length: 10_000 }, (_, i) => (i === 4321 ? 1e6 : 1));
    const { x, y } = decimate(...series(values), 50);
    expect(y).toContain(1e6);
    expect(x[y.indexOf(1e6)]).toBe(4321);
  });

  it('does not repeat the last point when it is already a kept extreme', () => {
    const { x } = decimate(...series([1, 2, 3, 4, 5, 6, 7, 8]), 2);
    expect(x).toEqual([0, 3, 4, 7]);
  });

  it("keeps every bucket's min and max and the last point, whatever the series", () => {
    for (const length of [1_000, 10_000, 100_000]) {
      const values = Array.from({ length }, (_, i) => Math.sin(i) * Math.exp(-i / length));
      const buckets = 300;
      const { x, y } = decimate(...series(values), buckets);
      expect(x.length).toBe(y.length);
      expect(x.length).toBeLessThanOrEqual(2 * buckets + 1);
      expect(x.at(-1)).toBe(length - 1);
      expect(x).toEqual([...x].sort((a, b) => a - b));
      // Recompute each bucket's extremes by brute force: both must be kept.
      const span = length - 1;
      const bucketOf = (i: number) => Math.min(buckets - 1, Math.floor((i / span) * buckets));
      const kept = new Set(x);
      const extremes = new Map<number, { min: number; max: number }>();
      values.forEach((v, i) => {
        const b = bucketOf(i);
        const e = extremes.get(b);
        if (!e) extremes.set(b, { min: i, max: i });
        else {
          if (v < values[e.min]!) e.min = i;
          if (v > values[e.max]!) e.max = i;
        }
      });
      for (const { min, max } of extremes.values()) {
        expect(kept.has(min)).toBe(true);
        expect(kept.has(max)).toBe(true);
      }
    }
  });

  it('maps non-finite values to null gaps, counts them and marks them (short series)', () => {
    const { y, nonFinite, marks } = decimate(...series([1, NaN, Infinity, 2, -Infinity]), 10);
    expect(y).toEqual([1, null, null, 2, null]);
    expect(nonFinite).toBe(3);
    expect(marks).toEqual([1, 2, 4]);
  });

  it('counts every non-finite value and keeps a gap where a bucket has no finite value', () => {
    // Twenty steps, four buckets of five: the run diverges at step 12.
    const values = Array.from({ length: 20 }, (_, i) => (i < 12 ? 10 - i / 2 : NaN));
    const { x, y, nonFinite, marks } = decimate(...series(values), 4);
    expect(nonFinite).toBe(8);
    // Bucket [10..14] keeps its finite extremes; [15..19] keeps one gap; the
    // last point (step 19) ends the line in a gap.
    expect(x).toEqual([0, 4, 5, 9, 10, 11, 15, 19]);
    expect(y).toEqual([10, 8, 7.5, 5.5, 5, 4.5, null, null]);
    // One mark per bucket holding a non-finite value, even beside finite extremes.
    expect(marks).toEqual([12, 15]);
  });

  it('ignores non-finite values when choosing extremes', () => {
    const { x, y } = decimate(...series([1, NaN, 3, 2, Infinity, 0, 2, 2]), 2);
    expect(x).toEqual([0, 2, 5, 6, 7]);
    expect(y).toEqual([1, 3, 0, 2, 2]);
  });

  it('decimates only the slice asked for, bucketing over its own x range', () => {
    const values = Array.from({ length: 1_000 }, (_, i) => i % 7);
    const { x } = decimate(...series(values), 10, 500, 600);
    expect(x[0]).toBeGreaterThanOrEqual(500);
    expect(x.at(-1)).toBe(599);
    expect(x.length).toBeLessThanOrEqual(21);
  });
});

describe('decimateBand', () => {
  it("keeps each bucket's lowest low and highest high at its first and last x", () => {
    const x = Float64Array.from({ length: 8 }, (_, i) => i);
    const low = Float64Array.from([1, 0, 2, 3, 5, 4, 6, 5]);
    const high = Float64Array.from([2, 3, 9, 4, 6, 8, 7, 6]);
    expect(decimateBand(x, low, high, 2)).toEqual({
      x: [0, 3, 4, 7],
      low: [0, 0, 4, 4],
      high: [9, 9, 8, 8],
    });
  });
});
