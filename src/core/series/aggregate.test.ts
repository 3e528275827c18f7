import { describe, expect, it } from 'vitest';
import { aggregateByStep } from './aggregate';

const member = (ys: readonly number[], x0 = 0) => ({
  step: Float64Array.from(ys, (_, i) => i),
  x: Float64Array.from(ys, (_, i) => x0 + i),
  y: Float64Array.from(ys),
});

describe('aggregateByStep', () => {
  it('gives the mean and the min–max band at each step', () => {
    const g = aggregateByStep([member([1, 2, 3]), member([3, 4]), member([2, 0, 6])]);
    expect([...g.step]).toEqual([0, 1, 2]);
    expect([...g.mean]).toEqual([2, 2, 4.5]);
    expect([...g.min]).toEqual([1, 0, 3]);
    expect([...g.max]).toEqual([3, 4, 6]);
    expect([...g.count]).toEqual([3, 3, 2]);
  });

  it('places the group at the mean x of its members', () => {
    const g = aggregateByStep([member([1, 1], 10), member([1, 1], 20)]);
    expect([...g.x]).toEqual([15, 16]);
  });

  it('leaves non-finite values out and counts them; a step with none finite is a gap', () => {
    const g = aggregateByStep([member([1, NaN, NaN]), member([3, 5, Infinity])]);
    expect([...g.mean]).toEqual([2, 5, NaN]);
    expect(g.nonFinite).toBe(3);
  });
});
