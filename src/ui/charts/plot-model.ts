/**
 * What a metric chart draws, apart from React and uPlot: pure, so Node tests
 * can check it.
 *
 * Two stages. `buildCurves` turns the full-resolution series of the shown
 * runs into curves, once per change of data or settings: x in the chosen
 * unit, the smoothed line when smoothing is on (computed over the whole
 * series, so zooming never changes a smoothed value), and, when runs are
 * grouped by a parameter, one mean curve per group with its min–max band.
 * `buildPlot` then cuts what is on screen out of those curves and decimates
 * it to the chart's width, once per frame that needs it: a zoom reads the
 * visible range at full resolution, and the cost stays tied to pixels.
 */
import { aggregateByStep } from '../../core/series/aggregate';
import { alignTables, type XTable } from '../../core/series/align';
import {
  asColumns,
  nearestIndex,
  toColumns,
  visibleRange,
  type SeriesInput,
  type XMode,
} from '../../core/series/columns';
import { decimate, decimateBand } from '../../core/series/decimate';
import { smoothEma } from '../../core/series/ema';
import type { ExportColumn } from '../../core/series/export';
import { groupByParam, type ParamsOfRun } from '../../core/series/params';
import { valueRange } from '../../core/series/range';

/** One colour per shown run or group, distinct for up to ten (Tableau 10). */
export const seriesColours = [
  '#4e79a7',
  '#f28e2b',
  '#e15759',
  '#76b7b2',
  '#59a14f',
  '#edc948',
  '#b07aa1',
  '#ff9da7',
  '#9c755f',
  '#bab0ac',
] as const;

export function colourAt(i: number): string {
  return seriesColours[i % seriesColours.length]!;
}

/** A run as the chart shows it. */
export interface ShownRun extends ParamsOfRun {
  readonly id: string;
  /** `0b1c2d3e lr=0.05`: the short id and the params that tell it apart. */
  readonly label: string;
  readonly colour: string;
}

/** How the person set up the charts. */
export interface ChartSettings {
  readonly xMode: XMode;
  /** TensorBoard smoothing weight, 0 (off) to 0.99. */
  readonly smoothing: number;
  readonly log: boolean;
  /** The x axis on a log scale (step and relative time; wall time stays linear). */
  readonly logX: boolean;
  readonly ignoreOutliers: boolean;
  /** A param to group runs by (mean with a min–max band), or null for one curve per run. */
  readonly groupBy: string | null;
}

export const defaultChartSettings: ChartSettings = {
  xMode: 'step',
  smoothing: 0,
  log: false,
  logX: false,
  ignoreOutliers: false,
  groupBy: null,
};

/** Whether `settings` put x on a log scale: wall time (seconds since 1970) never is. */
export function xIsLog(settings: Pick<ChartSettings, 'xMode' | 'logX'>): boolean {
  return settings.logX && settings.xMode !== 'wall';
}

/** One line of the chart at full resolution: a run's, or a group's mean. */
export interface Curve {
  readonly key: string;
  readonly label: string;
  readonly colour: string;
  readonly x: Float64Array;
  /** The values as recorded (for a group: the mean at each step). */
  readonly raw: Float64Array;
  /** The smoothed line, or null when smoothing is off. */
  readonly smoothed: Float64Array | null;
  /** A group's min–max band (a group's curve is the mean of its runs). */
  readonly band: { readonly low: Float64Array; readonly high: Float64Array } | null;
  /** Points recorded (for a group: over all its runs). */
  readonly count: number;
  /** Values recorded that were NaN or ±Infinity. */
  readonly nonFinite: number;
  /** The runs behind it. */
  readonly runIds: readonly string[];
}

/** The curves of `runs`, whose series are `series[i]` (same order), under `settings`. */
export function buildCurves(
  runs: readonly ShownRun[],
  series: readonly SeriesInput[],
  settings: ChartSettings,
): Curve[] {
  const smooth = (y: Float64Array) =>
    settings.smoothing > 0 ? smoothEma(y, settings.smoothing) : null;
  if (settings.groupBy === null) {
    return runs.map((run, i) => {
      const points = asColumns(series[i] ?? []);
      const { x, y } = toColumns(points, settings.xMode);
      return {
        key: run.id,
        label: run.label,
        colour: run.colour,
        x,
        raw: y,
        smoothed: smooth(y),
        band: null,
        count: points.length,
        nonFinite: points.nonFinite,
        runIds: [run.id],
      };
    });
  }
  const indexed = runs.map((run, i) => ({ ...run, points: asColumns(series[i] ?? []) }));
  return groupByParam(indexed, settings.groupBy).map((group, g) => {
    const members = group.members.map((m) => ({
      step: m.points.step,
      ...toColumns(m.points, settings.xMode),
    }));
    const agg = aggregateByStep(members);
    return {
      key: `group:${group.label}`,
      label: group.label,
      colour: colourAt(g),
      x: agg.x,
      raw: agg.mean,
      smoothed: smooth(agg.mean),
      band: group.members.length > 1 ? { low: agg.min, high: agg.max } : null,
      count: group.members.reduce((n, m) => n + m.points.length, 0),
      nonFinite: agg.nonFinite,
      runIds: group.members.map((m) => m.id),
    };
  });
}

/** The role of one drawn uPlot series. */
export type PlotRole = 'line' | 'raw' | 'low' | 'high';

/** One uPlot series (after the x column). */
export interface PlotSeries {
  readonly key: string;
  readonly label: string;
  readonly colour: string;
  readonly role: PlotRole;
}

/** Everything uPlot needs for one frame. */
export interface PlotModel {
  /** `[x, ...one column per series]`, uPlot's aligned layout. */
  readonly data: (number | null | undefined)[][];
  readonly series: readonly PlotSeries[];
  /** Band fills, as 1-based uPlot series indexes `[high, low]`, with their colour. */
  readonly bands: readonly { readonly series: [number, number]; readonly colour: string }[];
  /** The x range to show: the zoom, or every curve's full extent. */
  readonly xRange: [number, number] | null;
  readonly yRange: [number, number] | null;
  /** x of non-finite values in view, per curve colour, to mark under the plot. */
  readonly marks: readonly { readonly colour: string; readonly x: readonly number[] }[];
}

/** How a frame is drawn: the plot's width in pixels, the zoom, the y scale. */
export interface PlotView {
  readonly width: number;
  readonly zoom: readonly [number, number] | null;
  readonly log: boolean;
  readonly ignoreOutliers: boolean;
}

/** The frame of `curves` for `view`: only what is in view, decimated to the width. */
export function buildPlot(curves: readonly Curve[], view: PlotView): PlotModel {
  const buckets = Math.max(16, Math.round(view.width));
  const full = fullExtent(curves);
  const xRange = view.zoom ? ([view.zoom[0], view.zoom[1]] as [number, number]) : full;
  // Only positive values have a place on a log axis: others become gaps.
  const drawable = (ys: (number | null)[]) =>
    view.log ? ys.map((v) => (v !== null && v > 0 ? v : null)) : ys;

  const behind: { table: XTable<number | null>; series: PlotSeries[] }[] = [];
  const bands: { table: XTable<number | null>; series: PlotSeries[] }[] = [];
  const lines: { table: XTable<number | null>; series: PlotSeries[] }[] = [];
  const marks: { colour: string; x: number[] }[] = [];
  for (const c of curves) {
    const { from, to } = xRange ? visibleRange(c.x, xRange[0], xRange[1]) : { from: 0, to: 0 };
    const raw = decimate(c.x, c.raw, buckets, from, to);
    if (raw.marks.length > 0) marks.push({ colour: c.colour, x: raw.marks });
    const spec = (role: PlotRole): PlotSeries => ({
      key: c.key,
      label: c.label,
      colour: c.colour,
      role,
    });
    if (c.band) {
      const band = decimateBand(c.x, c.band.low, c.band.high, buckets, from, to);
      bands.push({
        table: { x: band.x, ys: [drawable(band.high), drawable(band.low)] },
        series: [spec('high'), spec('low')],
      });
    }
    if (c.smoothed) {
      behind.push({ table: { x: raw.x, ys: [drawable(raw.y)] }, series: [spec('raw')] });
      const smooth = decimate(c.x, c.smoothed, buckets, from, to);
      lines.push({ table: { x: smooth.x, ys: [drawable(smooth.y)] }, series: [spec('line')] });
    } else {
      lines.push({ table: { x: raw.x, ys: [drawable(raw.y)] }, series: [spec('line')] });
    }
  }
  // Drawn in order: faint raw curves behind, then bands, then the lines on top.
  const parts = [...behind, ...bands, ...lines];
  const aligned = alignTables(parts.map((p) => p.table));
  const series = parts.flatMap((p) => p.series);
  const bandFills: { series: [number, number]; colour: string }[] = [];
  series.forEach((s, i) => {
    // uPlot counts the x column as series 0; a band's low edge follows its high edge.
    if (s.role === 'high') bandFills.push({ series: [i + 1, i + 2], colour: s.colour });
  });
  return {
    data: [aligned.x, ...aligned.ys],
    series,
    bands: bandFills,
    xRange,
    yRange: valueRange(aligned.ys, view),
    marks,
  };
}

/** The smallest and largest x of any curve, or null when there are no points. */
function fullExtent(curves: readonly Curve[]): [number, number] | null {
  let lo = Infinity;
  let hi = -Infinity;
  for (const c of curves) {
    if (c.x.length === 0) continue;
    lo = Math.min(lo, c.x[0]!);
    hi = Math.max(hi, c.x[c.x.length - 1]!);
  }
  if (lo > hi) return null;
  // One point (or one x) still needs a range to sit in.
  return lo === hi ? [lo - 1, hi + 1] : [lo, hi];
}

/** A curve's value nearest to the hovered x. */
export interface HoverValue {
  readonly key: string;
  readonly x: number;
  /** The drawn value: smoothed when smoothing is on. */
  readonly value: number;
  /** The recorded value there (the mean, for a group). */
  readonly raw: number;
  /** A group's min and max there. */
  readonly low?: number;
  readonly high?: number;
}

/** Each curve's point nearest to `x` (curves with no points are left out). */
export function valuesAt(curves: readonly Curve[], x: number): HoverValue[] {
  const out: HoverValue[] = [];
  for (const c of curves) {
    const i = nearestIndex(c.x, x);
    if (i < 0) continue;
    // A run that ended (or started) elsewhere has no value here: beyond half
    // a point's spacing past either end, it is left out.
    const n = c.x.length;
    const first = c.x[0]!;
    const last = c.x[n - 1]!;
    const slack = n > 1 ? (last - first) / (n - 1) / 2 : 0.5;
    if (x < first - slack || x > last + slack) continue;
    const raw = c.raw[i]!;
    const value = c.smoothed ? c.smoothed[i]! : raw;
    out.push(
      c.band
        ? { key: c.key, x: c.x[i]!, value, raw, low: c.band.low[i]!, high: c.band.high[i]! }
        : { key: c.key, x: c.x[i]!, value, raw },
    );
  }
  return out;
}

/**
 * The columns a chart exports: every curve at full resolution, one column per
 * run (or per group mean, min and max), plus the smoothed line when shown.
 */
export function exportColumns(curves: readonly Curve[]): ExportColumn[] {
  return curves.flatMap((c) => {
    const run = c.runIds.length === 1 && !c.band ? { run: c.runIds[0]! } : {};
    const columns: ExportColumn[] = [
      { label: c.band ? `${c.label} mean` : c.label, x: c.x, y: c.raw, ...run },
    ];
    if (c.band) {
      columns.push({ label: `${c.label} min`, x: c.x, y: c.band.low });
      columns.push({ label: `${c.label} max`, x: c.x, y: c.band.high });
    }
    if (c.smoothed) columns.push({ label: `${c.label} (smoothed)`, x: c.x, y: c.smoothed, ...run });
    return columns;
  });
}
