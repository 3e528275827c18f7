import { describe, expect, it } from 'vitest';
import { formatSummary, formatValue, summarizeSeries } from './summary';

function series(values: readonly number[]): Float64Array {
  return Float64Array.from(values);
}

describe('summarizeSeries', () => {
  it('counts every point and takes min and max over finite values only', () => {
    expect(summarizeSeries(series([0.7, NaN, 0.39, -Infinity, 0.41]))).toEqual({
      count: 5,
      last: 0.41,
      min: 0.39,
      max: 0.7,
      nonFinite: 2,
    });
  });

  it('reports a non-finite last value as it is', () => {
    expect(summarizeSeries(series([1, NaN])).last).toBeNaN();
  });
});

describe('formatSummary', () => {
  it('says count, last, min and max', () => {
    expect(formatSummary(summarizeSeries(series([0.7, 0.39, 0.41])))).toBe(
      '3 points · last 0.41 · min 0.39 · max 0.7',
    );
  });

  it('adds the non-finite count only when there are any', () => {
    expect(formatSummary(summarizeSeries(series([2.5, NaN, Infinity, 1.25])))).toBe(
      '4 points · last 1.25 · min 1.25 · max 2.5 · 2 non-finite',
    );
  });

  it('says it is waiting before the first point', () => {
    expect(formatSummary(summarizeSeries([]))).toBe('0 points · waiting for data');
  });

  it('uses the singular for one point and leaves out min and max when none is finite', () => {
    expect(formatSummary(summarizeSeries(series([NaN])))).toBe('1 point · last NaN · 1 non-finite');
  });
});

describe('formatValue', () => {
  it.each([
    [0, '0'],
    [0.41, '0.41'],
    [2.3125, '2.31'],
    [-0.123456, '-0.123'],
    [999.96, '1000'],
    [12345.6, '12346'],
    [2.5e7, '2.5e+7'],
    [0.000123, '1.23e-4'],
    [NaN, 'NaN'],
    [-Infinity, '-Infinity'],
  ])('formats %s as %s', (value, text) => {
    expect(formatValue(value)).toBe(text);
  });
});
