import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromRunExport, toRunExport } from '../src/core/run/export';
import { barSize, formatValue, summaryTable } from './report';

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

describe('the summary at the end of a run', () => {
  it('lists the nodes in the flow’s order, each with its outcome and last values', () => {
    const fixture = new URL('../src/db/fixtures/run-v1.run.json', import.meta.url);
    const imported = fromRunExport(JSON.parse(readFileSync(fixture, 'utf8')));
    if (!imported.ok) throw new Error(JSON.stringify(imported.issues));
    const lines = summaryTable(toRunExport(imported.record)).trimEnd().split('\n');
    expect(lines[0]).toMatch(/^node\s+status\s+time\s+points\s+last values$/);
    // The record keeps its nodes by name (data, eval, model, split, train); the flow draws them so.
    expect(lines.slice(1).map((line) => line.split(/\s+/)[0])).toEqual([
      'data',
      'split',
      'model',
      'train',
      'eval',
    ]);
    expect(lines.find((line) => line.startsWith('eval'))).toMatch(/accuracy=\d\.\d{4}$/);
  });
});

describe('a progress line on a terminal', () => {
  it('fits an 80-column terminal with its loss, for a long run of a long-named node', () => {
    const line = (columns: number) =>
      ` pendulum ${'█'.repeat(barSize(columns))} 20000/20000 steps · 12345.6 steps/s · loss 0.02563`;
    expect(line(80).length).toBeLessThanOrEqual(80);
    // A wide terminal gets the full bar, a narrow one the smallest.
    expect(barSize(200)).toBe(40);
    expect(barSize(40)).toBe(10);
  });
});
