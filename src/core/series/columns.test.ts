import { describe, expect, it } from 'vitest';
import { nearestIndex, toColumns, visibleRange } from './columns';

const points = [
  { step: 0, value: 1, ts: 1000.5 },
  { step: 1, value: 2, ts: 1001 },
  { step: 2, value: NaN, ts: 1003 },
];

describe('toColumns', () => {
  it('puts x in the unit of the mode', () => {
    expect([...toColumns(points, 'step').x]).toEqual([0, 1, 2]);
    expect([...toColumns(points, 'wall').x]).toEqual([1000.5, 1001, 1003]);
    expect([...toColumns(points, 'relative').x]).toEqual([0, 0.5, 2.5]);
    expect([...toColumns(points, 'step').y]).toEqual([1, 2, NaN]);
  });
});

describe('visibleRange', () => {
  const x = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
  it('takes the points inside the range and one beyond each edge', () => {
    expect(visibleRange(x, 2.5, 5)).toEqual({ from: 2, to: 7 });
    expect(visibleRange(x, 3, 5)).toEqual({ from: 2, to: 7 });
  });
  it('stays inside the series', () => {
    expect(visibleRange(x, -10, 100)).toEqual({ from: 0, to: 10 });
    expect(visibleRange(x, 20, 30)).toEqual({ from: 9, to: 10 });
  });
});

describe('nearestIndex', () => {
  it('finds the nearest x', () => {
    const x = [0, 10, 20];
    expect(nearestIndex(x, 4)).toBe(0);
    expect(nearestIndex(x, 6)).toBe(1);
    expect(nearestIndex(x, 99)).toBe(2);
    expect(nearestIndex(x, -5)).toBe(0);
    expect(nearestIndex([], 1)).toBe(-1);
  });
});
