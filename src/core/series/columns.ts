/**
 * A metric series as two columns, `x` and `y`, ready to smooth, slice and draw.
 *
 * Run records keep a point as `{ step, value, ts }`; a chart wants one x per
 * point in the unit the person chose (the step, the wall-clock time, or the
 * seconds since the run's first point) and the values beside them. Typed
 * arrays keep a million points at 16 bytes each, and binary search over `x`
 * finds the part of a series a zoomed chart shows without scanning it.
 */

/** One metric point as the run record stores it; `ts` in epoch seconds. */
export interface MetricPoint {
  readonly step: number;
  readonly value: number;
  readonly ts: number;
}

/** What the x axis counts: emissions, wall-clock seconds, or seconds since the run's first point. */
export type XMode = 'step' | 'wall' | 'relative';

/** A series as columns; `x` ascending (or nearly, for wall time), `y` as recorded. */
export interface SeriesColumns {
  readonly x: Float64Array;
  readonly y: Float64Array;
}

/** The x column header and axis title for each mode. */
export const xLabels: Readonly<Record<XMode, string>> = {
  step: 'step',
  wall: 'wall time (s)',
  relative: 'relative time (s)',
};

/**
 * A stored series as typed columns, one entry per point in step order: how a
 * live chart holds a run's series (see `series-buffer.ts`), 24 bytes a point.
 */
export interface MetricColumns {
  readonly length: number;
  readonly step: Float64Array;
  readonly value: Float64Array;
  readonly ts: Float64Array;
  /** How many values are NaN or ±Infinity. */
  readonly nonFinite: number;
}

/** A series either way: as the record's points, or already as columns. */
export type SeriesInput = MetricColumns | readonly MetricPoint[];

/** `points` as {@link MetricColumns}. */
export function columnsOf(points: readonly MetricPoint[]): MetricColumns {
  const n = points.length;
  const step = new Float64Array(n);
  const value = new Float64Array(n);
  const ts = new Float64Array(n);
  let nonFinite = 0;
  for (let i = 0; i < n; i++) {
    const p = points[i]!;
    step[i] = p.step;
    value[i] = p.value;
    ts[i] = p.ts;
    if (!Number.isFinite(p.value)) nonFinite++;
  }
  return { length: n, step, value, ts, nonFinite };
}

/** `series` as columns, whichever way it came. */
export function asColumns(series: SeriesInput): MetricColumns {
  return isPoints(series) ? columnsOf(series) : series;
}

function isPoints(series: SeriesInput): series is readonly MetricPoint[] {
  return Array.isArray(series);
}

/**
 * `series` as x/y columns, with x in `mode`'s unit. Steps and wall times are
 * the stored columns themselves (no copy: a million-point series costs
 * nothing to re-chart after each flush); relative time is one pass.
 */
export function toColumns(series: SeriesInput, mode: XMode): SeriesColumns {
  const c = asColumns(series);
  if (mode === 'step') return { x: c.step, y: c.value };
  if (mode === 'wall') return { x: c.ts, y: c.value };
  const origin = c.ts[0] ?? 0;
  const x = new Float64Array(c.length);
  for (let i = 0; i < c.length; i++) x[i] = c.ts[i]! - origin;
  return { x, y: c.value };
}

/** The first index whose x is ≥ `value` (`x.length` when none is). */
export function lowerBound(x: ArrayLike<number>, value: number): number {
  let lo = 0;
  let hi = x.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (x[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first index whose x is > `value` (`x.length` when none is). */
export function upperBound(x: ArrayLike<number>, value: number): number {
  let lo = 0;
  let hi = x.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (x[mid]! <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The index range `[from, to)` of the points inside `[min, max]`, widened by
 * one point on each side so a zoomed line runs on to the edges of the plot.
 */
export function visibleRange(
  x: ArrayLike<number>,
  min: number,
  max: number,
): { from: number; to: number } {
  const from = Math.max(0, lowerBound(x, min) - 1);
  const to = Math.min(x.length, upperBound(x, max) + 1);
  return { from, to: Math.max(from, to) };
}

/** The index of the point whose x is nearest to `value`; -1 for an empty series. */
export function nearestIndex(x: ArrayLike<number>, value: number): number {
  if (x.length === 0) return -1;
  const i = lowerBound(x, value);
  if (i === 0) return 0;
  if (i >= x.length) return x.length - 1;
  return value - x[i - 1]! <= x[i]! - value ? i - 1 : i;
}
