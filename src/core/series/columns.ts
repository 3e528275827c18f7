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

/** `points` as columns, with x in `mode`'s unit. */
export function toColumns(points: readonly MetricPoint[], mode: XMode): SeriesColumns {
  const n = points.length;
  const x = new Float64Array(n);
  const y = new Float64Array(n);
  const origin = mode === 'relative' ? (points[0]?.ts ?? 0) : 0;
  for (let i = 0; i < n; i++) {
    const p = points[i]!;
    x[i] = mode === 'step' ? p.step : p.ts - origin;
    y[i] = p.value;
  }
  return { x, y };
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
