import { describe, expect, it } from 'vitest';
import { curveOnLogX, logTickLabel, logTicks } from './log-x';
import { buildCurves, defaultChartSettings, exportColumns, type ShownRun } from './plot-model';

const run: ShownRun = { id: 'a', label: 'a', colour: '#000000', params: {}, seed: 0 };
/** Steps 0, 1, 10, 100 and 1000 with values 5, 4, 3, 2, 1. */
const steps = [0, 1, 10, 100, 1000];
const series = steps.map((step, i) => ({ step, value: 5 - i, ts: 1000 + i }));

describe('the x axis on a log scale', () => {
  it('puts each point at log10 of its x, leaving out x = 0, with its values beside it', () => {
    const [curve] = buildCurves([run], [series], { ...defaultChartSettings, smoothing: 0.5 });
    const onLog = curveOnLogX(curve!);
    expect([...onLog.x]).toEqual([0, 1, 2, 3]);
    expect([...onLog.raw]).toEqual([4, 3, 2, 1]);
    expect([...onLog.smoothed!]).toEqual([...curve!.smoothed!.subarray(1)]);
    // The recorded curve is untouched: exports keep step 0 and the steps as they were.
    expect(Array.from(exportColumns([curve!])[0]!.x)).toEqual(steps);
    expect(onLog.count).toBe(5);
  });

  it('keeps a group’s band in step with its mean', () => {
    const runs = [
      { ...run, id: 'a', params: { lr: 1 } },
      { ...run, id: 'b', params: { lr: 1 } },
    ];
    const other = series.map((p) => ({ ...p, value: p.value + 2 }));
    const [group] = buildCurves(runs, [series, other], {
      ...defaultChartSettings,
      groupBy: 'lr',
    });
    const onLog = curveOnLogX(group!);
    expect([...onLog.raw]).toEqual([5, 4, 3, 2]);
    expect([...onLog.band!.low]).toEqual([4, 3, 2, 1]);
    expect([...onLog.band!.high]).toEqual([6, 5, 4, 3]);
  });

  it('ticks at 1, 2, 5 × 10ⁿ over a few decades, at powers of ten over many, labelled in x', () => {
    expect(logTicks(0, 2).map(logTickLabel)).toEqual(['1', '2', '5', '10', '20', '50', '100']);
    expect(logTicks(0, 6).map(logTickLabel)).toEqual([
      '1',
      '10',
      '100',
      '1000',
      '10000',
      '1e5',
      '1e6',
    ]);
    expect(logTicks(Math.log10(3), Math.log10(30)).map(logTickLabel)).toEqual(['5', '10', '20']);
  });
});
