import { describe, expect, it } from 'vitest';
import { formatValue } from './report';

describe('a value in the command line’s tables', () => {
  it('has four significant digits, so a column of them lines up', () => {
    expect([0.9, 0.9467, 0.97, 12.5].map(formatValue)).toEqual([
      '0.9000',
      '0.9467',
      '0.9700',
      '12.50',
    ]);
  });

  it('shows an integer whole, a very small or large number in exponent form, and what is no number as JSON', () => {
    expect([3, 0, -2, 250_000].map(formatValue)).toEqual(['3', '0', '-2', '250000']);
    expect([0.000_123_4, 12_345.6].map(formatValue)).toEqual(['1.234e-4', '1.235e+4']);
    expect([undefined, 'a', null].map(formatValue)).toEqual(['—', '"a"', 'null']);
  });
});
