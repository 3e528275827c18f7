import { describe, expect, it } from 'vitest';
import type { FlowInput } from '../flow/document';
import { grid, MAX_SWEEP_RUNS, sweepValues } from './sweep';

const lr: FlowInput = { name: 'lr', type: 'number' };
const seed: FlowInput = { name: 'seed', type: 'int' };

describe('sweepValues', () => {
  it('reads a single value, a list and an integer range', () => {
    expect(sweepValues(lr, '0.1')).toEqual(['0.1']);
    expect(sweepValues(lr, '0.01, 0.03,0.1')).toEqual(['0.01', '0.03', '0.1']);
    expect(sweepValues(seed, '0..2')).toEqual(['0', '1', '2']);
    expect(sweepValues(seed, '5, 0..1')).toEqual(['5', '0', '1']);
  });

  it('refuses ranges on non-integer inputs, downward ranges and huge ranges, naming the input', () => {
    expect(sweepValues(lr, '0..2')).toMatch(/^'lr': a range like 0\.\.2 needs an integer input/);
    expect(sweepValues(seed, '3..1')).toMatch(/^'seed': the range 3\.\.1 is empty/);
    expect(sweepValues(seed, `0..${MAX_SWEEP_RUNS}`)).toMatch(/more than 1000 values/);
  });
});

describe('grid', () => {
  it('is every combination, the first axis slowest', () => {
    expect(
      grid([
        { name: 'lr', values: ['0.01', '0.1'] },
        { name: 'seed', values: ['0', '1', '2'] },
      ]),
    ).toEqual([
      { lr: '0.01', seed: '0' },
      { lr: '0.01', seed: '1' },
      { lr: '0.01', seed: '2' },
      { lr: '0.1', seed: '0' },
      { lr: '0.1', seed: '1' },
      { lr: '0.1', seed: '2' },
    ]);
    expect(grid([])).toEqual([{}]);
  });
});
