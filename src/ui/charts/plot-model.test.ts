import { describe, expect, it } from 'vitest';
import { buildCsv } from '../../core/series/export';
import {
  buildCurves,
  buildPlot,
  defaultChartSettings,
  exportColumns,
  valuesAt,
  type ChartSettings,
  type ShownRun,
} from './plot-model';

const shown = (id: string, lr: number, seed = 0): ShownRun => ({
  id,
  label: `${id} lr=${lr}`,
  colour: `#00000${id.length}`,
  params: { lr },
  seed,
});
const points = (values: readonly number[], t0 = 1000) =>
  values.map((value, step) => ({ step, value, ts: t0 + step }));
const settings = (over: Partial<ChartSettings> = {}): ChartSettings => ({
  ...defaultChartSettings,
  ...over,
});
const view = { width: 400, zoom: null, log: false, ignoreOutliers: false };

describe('buildCurves', () => {
  it('gives one curve per run, counting points and non-finite values', () => {
    const curves = buildCurves(
      [shown('a', 0.05), shown('b', 0.1)],
      [points([1, 2, NaN]), points([3, Infinity])],
      settings(),
    );
    expect(curves.map((c) => [c.label, c.count, c.nonFinite])).toEqual([
      ['a lr=0.05', 3, 1],
      ['b lr=0.1', 2, 1],
    ]);
    expect(curves[0]!.smoothed).toBeNull();
  });

  it('keeps the raw values beside the smoothed line when smoothing', () => {
    const [curve] = buildCurves(
      [shown('a', 1)],
      [points([1, 0.5, 0])],
      settings({ smoothing: 0.6 }),
    );
    expect([...curve!.raw]).toEqual([1, 0.5, 0]);
    expect(curve!.smoothed![1]).toBe(0.6875);
  });

  it('groups runs by a param into a mean with a min–max band', () => {
    const curves = buildCurves(
      [shown('a', 0.1, 0), shown('b', 0.1, 1), shown('c', 0.05, 0)],
      [points([1, 3]), points([3, 5]), points([7, 7])],
      settings({ groupBy: 'lr' }),
    );
    expect(curves.map((c) => c.label)).toEqual(['lr=0.05', 'lr=0.1']);
    const group = curves[1]!;
    expect([...group.raw]).toEqual([2, 4]);
    expect([...group.band!.low]).toEqual([1, 3]);
    expect([...group.band!.high]).toEqual([3, 5]);
    expect(group.runIds).toEqual(['a', 'b']);
  });

  it('measures x in the chosen unit', () => {
    const [curve] = buildCurves(
      [shown('a', 1)],
      [points([1, 2], 500)],
      settings({ xMode: 'relative' }),
    );
    expect([...curve!.x]).toEqual([0, 1]);
  });
});

describe('buildPlot', () => {
  const three = buildCurves(
    [shown('a', 0.05), shown('bb', 0.1), shown('ccc', 0.2)],
    [points([1, 2, 3]), points([2, 3, 4, 5]), points([0.5, 0.25])],
    settings(),
  );

  it('draws one line per run on one merged x column', () => {
    const plot = buildPlot(three, view);
    expect(plot.series.map((s) => [s.key, s.role])).toEqual([
      ['a', 'line'],
      ['bb', 'line'],
      ['ccc', 'line'],
    ]);
    expect(plot.data[0]).toEqual([0, 1, 2, 3]);
    expect(plot.data[3]).toEqual([0.5, 0.25, undefined, undefined]);
    expect(plot.xRange).toEqual([0, 3]);
  });

  it('draws the raw curve behind the smoothed one, and bands between their edges', () => {
    const curves = buildCurves(
      [shown('a', 0.1, 0), shown('b', 0.1, 1)],
      [points([1, 3, 2]), points([3, 5, 4])],
      settings({ groupBy: 'lr', smoothing: 0.5 }),
    );
    const plot = buildPlot(curves, view);
    expect(plot.series.map((s) => s.role)).toEqual(['raw', 'high', 'low', 'line']);
    expect(plot.bands).toEqual([{ series: [2, 3], colour: curves[0]!.colour }]);
  });

  it('leaves non-finite values as gaps and marks them', () => {
    const curves = buildCurves([shown('a', 1)], [points([1, NaN, 2])], settings());
    const plot = buildPlot(curves, view);
    expect(plot.data[1]).toEqual([1, null, 2]);
    expect(plot.marks).toEqual([{ colour: curves[0]!.colour, x: [1] }]);
  });

  it('turns values that a log axis cannot show into gaps', () => {
    const curves = buildCurves([shown('a', 1)], [points([1, 0, -1, 10])], settings());
    const plot = buildPlot(curves, { ...view, log: true });
    expect(plot.data[1]).toEqual([1, null, null, 10]);
    expect(plot.yRange![0]).toBeGreaterThan(0);
  });

  it('decimates to the width, and a zoom reads its range at full resolution', () => {
    const values = Array.from({ length: 100_000 }, (_, i) => Math.sin(i / 10));
    const curves = buildCurves([shown('a', 1)], [points(values)], settings());
    const whole = buildPlot(curves, { ...view, width: 300 });
    expect(whole.data[0]!.length).toBeLessThanOrEqual(601);
    const zoomed = buildPlot(curves, { ...view, width: 300, zoom: [5000, 5100] });
    // Every step of the zoomed range is back, plus one beyond each edge.
    expect(zoomed.data[0]).toEqual(Array.from({ length: 103 }, (_, i) => 4999 + i));
    expect(zoomed.xRange).toEqual([5000, 5100]);
  });

  it('fits y to the visible values, or to the bulk of them when ignoring outliers', () => {
    const values = Array.from({ length: 200 }, (_, i) => (i === 7 ? 1000 : i % 2));
    const curves = buildCurves([shown('a', 1)], [points(values)], settings());
    expect(buildPlot(curves, view).yRange![1]).toBeGreaterThan(1000);
    expect(buildPlot(curves, { ...view, ignoreOutliers: true }).yRange![1]).toBeLessThan(2);
  });
});

describe('valuesAt', () => {
  it("gives every run's value at the hovered x, leaving out runs that have none there", () => {
    const curves = buildCurves(
      [shown('a', 0.05), shown('b', 0.1)],
      [points([1, 2, 3, 4]), points([5, 6])],
      settings(),
    );
    expect(valuesAt(curves, 1.2)).toEqual([
      { key: 'a', x: 1, value: 2, raw: 2 },
      { key: 'b', x: 1, value: 6, raw: 6 },
    ]);
    expect(valuesAt(curves, 3).map((v) => v.key)).toEqual(['a']);
  });
});

describe('exportColumns', () => {
  it("holds every run's points in one CSV, one column per run", () => {
    const curves = buildCurves(
      [shown('a', 0.05), shown('b', 0.1)],
      [points([1, 2, 3]), points([4, NaN])],
      settings(),
    );
    expect(buildCsv('step', exportColumns(curves))).toBe(
      'step,a lr=0.05,b lr=0.1\n0,1,4\n1,2,NaN\n2,3,\n',
    );
  });

  it('adds smoothed columns, and a group’s min and max', () => {
    const curves = buildCurves(
      [shown('a', 0.1, 0), shown('b', 0.1, 1)],
      [points([1, 3]), points([3, 5])],
      settings({ groupBy: 'lr', smoothing: 0.5 }),
    );
    expect(exportColumns(curves).map((c) => c.label)).toEqual([
      'lr=0.1 mean',
      'lr=0.1 min',
      'lr=0.1 max',
      'lr=0.1 (smoothed)',
    ]);
  });
});
