import { describe, expect, it } from 'vitest';
import { quantile, valueRange } from './range';

const linear = { ignoreOutliers: false, log: false };

describe('valueRange', () => {
  it('fits every finite value with a little room', () => {
    expect(valueRange([[0, 10, null, undefined, NaN, Infinity]], linear)).toEqual([-0.5, 10.5]);
  });

  it('fits the 5th–95th percentile when ignoring outliers', () => {
    const values = [...Array.from({ length: 98 }, (_, i) => i / 97), 1000, -1000];
    const [lo, hi] = valueRange([values], { ignoreOutliers: true, log: false })!;
    expect(lo).toBeGreaterThan(-1);
    expect(hi).toBeLessThan(2);
  });

  it('fits only positive values on a log scale', () => {
    const [lo, hi] = valueRange([[-1, 0, 0.01, 100]], { ignoreOutliers: false, log: true })!;
    expect(lo).toBeGreaterThan(0);
    expect(lo).toBeLessThan(0.01);
    expect(hi).toBeGreaterThan(100);
  });

  it('opens a flat line into a range and gives null when nothing is drawable', () => {
    expect(valueRange([[2, 2]], linear)).toEqual([1.8, 2.2]);
    expect(valueRange([[null, NaN]], linear)).toBeNull();
  });
});

describe('quantile', () => {
  it('interpolates between neighbours', () => {
    expect(quantile([0, 10], 0.25)).toBe(2.5);
    expect(quantile([1, 2, 3], 0.5)).toBe(2);
  });
});
