import { describe, expect, it } from 'vitest';
import { buildChartJson, buildCsv } from './export';

const col = (label: string, xs: number[], ys: number[], run?: string) => ({
  label,
  x: Float64Array.from(xs),
  y: Float64Array.from(ys),
  ...(run ? { run } : {}),
});

describe('buildCsv', () => {
  it("holds every run's points, one column per run, rows on shared steps", () => {
    const a = col('aaaa lr=0.05', [0, 1, 2], [0.9, 0.5, 0.25]);
    const b = col('bbbb lr=0.1', [0, 1, 2, 3], [0.8, 0.4, NaN, Infinity]);
    expect(buildCsv('step', [a, b])).toBe(
      [
        'step,aaaa lr=0.05,bbbb lr=0.1',
        '0,0.9,0.8',
        '1,0.5,0.4',
        '2,0.25,NaN',
        '3,,Infinity',
        '',
      ].join('\n'),
    );
  });

  it('loses no point of a long series, at full precision', () => {
    const xs = Array.from({ length: 5000 }, (_, i) => i);
    const ys = xs.map((i) => Math.sin(i) / 3);
    const rows = buildCsv('step', [col('r', xs, ys)])
      .trim()
      .split('\n')
      .slice(1);
    expect(rows).toHaveLength(5000);
    expect(rows.map((r) => Number(r.split(',')[1]))).toEqual(ys);
  });

  it('quotes headers that hold commas or quotes', () => {
    expect(buildCsv('step', [col('a,"b"', [0], [1])]).split('\n')[0]).toBe('step,"a,""b"""');
  });
});

describe('buildChartJson', () => {
  it('writes every series with non-finite values kept as strings', () => {
    const json = buildChartJson('train.loss', 'step', [col('r', [0, 1], [1, -Infinity], 'run-1')]);
    expect(json).toEqual({
      format: 'flowbench.chart/1',
      metric: 'train.loss',
      x: 'step',
      series: [
        {
          label: 'r',
          run: 'run-1',
          points: [
            [0, 1],
            [1, null, '-Infinity'],
          ],
        },
      ],
    });
    expect(JSON.parse(JSON.stringify(json))).toEqual(json);
  });
});
