import { describe, expect, it } from 'vitest';
import { buildLongCsv, buildLongJson, type LongSeries } from './long-export';

const series = (
  run: string,
  metric: string,
  points: readonly [step: number, value: number, ts: number][],
): LongSeries => ({
  run,
  metric,
  columns: {
    length: points.length,
    step: Float64Array.from(points, (p) => p[0]),
    value: Float64Array.from(points, (p) => p[1]),
    ts: Float64Array.from(points, (p) => p[2]),
  },
});

const two = [
  series('run-a', 'train.loss', [
    [0, 2.302585092994046, 1732900000.125],
    [1, 1.5, 1732900000.5],
  ]),
  series('run-a', 'eval.accuracy', [[0, 0.9, 1732900001]]),
  series('run-b', 'train.loss', [
    [0, 2.25, 1732900002],
    [1, Number.NaN, 1732900003],
    [2, Number.NEGATIVE_INFINITY, 1732900004],
  ]),
];

describe('every metric of several runs in long format', () => {
  it('writes one CSV row per point, full precision, non-finite values as pandas reads them', () => {
    expect(buildLongCsv(two)).toBe(
      [
        'run,metric,step,value,wall_time',
        'run-a,train.loss,0,2.302585092994046,1732900000.125',
        'run-a,train.loss,1,1.5,1732900000.5',
        'run-a,eval.accuracy,0,0.9,1732900001',
        'run-b,train.loss,0,2.25,1732900002',
        'run-b,train.loss,1,NaN,1732900003',
        'run-b,train.loss,2,-Infinity,1732900004',
        '',
      ].join('\n'),
    );
  });

  it('quotes a name that holds a comma or a quote', () => {
    const csv = buildLongCsv([series('r', 'loss, "smoothed"', [[0, 1, 2]])]);
    expect(csv.split('\n')[1]).toBe('r,"loss, ""smoothed""",0,1,2');
  });

  it('gives the same rows as JSON objects, a non-finite value as null with what it was', () => {
    const json = buildLongJson(two);
    expect(json.format).toBe('flowbench.metrics-long/1');
    expect(json.rows).toHaveLength(6);
    expect(json.rows[0]).toEqual({
      run: 'run-a',
      metric: 'train.loss',
      step: 0,
      value: 2.302585092994046,
      wall_time: 1732900000.125,
    });
    expect(JSON.parse(JSON.stringify(json.rows.slice(4)))).toEqual([
      {
        run: 'run-b',
        metric: 'train.loss',
        step: 1,
        value: null,
        nonfinite: 'NaN',
        wall_time: 1732900003,
      },
      {
        run: 'run-b',
        metric: 'train.loss',
        step: 2,
        value: null,
        nonfinite: '-Infinity',
        wall_time: 1732900004,
      },
    ]);
  });
});
