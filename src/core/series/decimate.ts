/**
 * Min/max decimation of a series for drawing.
 *
 * A chart a few hundred pixels wide cannot show more than two values per pixel
 * column: the lowest and the highest. So the part of the series on screen is
 * cut into `buckets` equal ranges of x, and each range keeps only its min and
 * its max, in x order. A loss spike survives (it is some bucket's max), and
 * the work of drawing grows with the chart's width, not with how long the run
 * has been training. The last point is always kept, so the line ends where the
 * run is now. Zooming in decimates a narrower slice of the same full-resolution
 * columns, so every point comes back once there is room for it.
 *
 * Non-finite values (NaN, ±Infinity) are not drawn as values: they become
 * `null`, which uPlot draws as a gap, and they are counted. A bucket holding
 * only non-finite values keeps one `null`, so a run that diverged shows a gap
 * instead of a line bridging over the damage; the x of one non-finite point
 * per bucket is returned too, so the chart can mark values that a bucket's
 * finite extremes would otherwise hide.
 */

/** x/y columns ready for uPlot, with what was not drawable. */
export interface DecimatedSeries {
  /** x of the kept points, ascending. */
  readonly x: number[];
  /** Values; `null` where the value was not finite (uPlot draws a gap). */
  readonly y: (number | null)[];
  /** How many points of the slice had a non-finite value. */
  readonly nonFinite: number;
  /** x of one non-finite point per bucket that had any, for marks. */
  readonly marks: number[];
}

/**
 * Reduces the points `[from, to)` of `x`/`y` (ascending x) to at most
 * `2 × buckets + 1` by keeping, per equal range of x, the min and the max
 * value in x order, plus the slice's last point. Slices shorter than
 * `2 × buckets` pass through whole (non-finite values becoming `null`).
 */
export function decimate(
  x: ArrayLike<number>,
  y: ArrayLike<number>,
  buckets: number,
  from = 0,
  to = x.length,
): DecimatedSeries {
  const bucketCount = Math.max(1, Math.floor(Number.isFinite(buckets) ? buckets : 1));
  const start = Math.max(0, from);
  const end = Math.min(x.length, y.length, to);
  if (end - start < 2 * bucketCount) return passThrough(x, y, start, end);

  const outX: number[] = [];
  const outY: (number | null)[] = [];
  const marks: number[] = [];
  let nonFinite = 0;
  const keep = (i: number): void => {
    const v = y[i]!;
    outX.push(x[i]!);
    outY.push(Number.isFinite(v) ? v : null);
  };

  const first = x[start]!;
  const span = x[end - 1]! - first;
  // A zero span (every point on one x) puts everything in bucket 0.
  const scale = span > 0 ? bucketCount / span : 0;
  // The current bucket's extremes and its first non-finite point, by index.
  let bucket = -1;
  let minAt = -1;
  let maxAt = -1;
  let gapAt = -1;
  let min = Infinity;
  let max = -Infinity;
  let lastKept = -1;

  const flush = (): void => {
    if (minAt >= 0) {
      const a = Math.min(minAt, maxAt);
      const b = Math.max(minAt, maxAt);
      keep(a);
      if (b !== a) keep(b);
      lastKept = b;
    } else if (gapAt >= 0) {
      keep(gapAt);
      lastKept = gapAt;
    }
    if (gapAt >= 0) marks.push(x[gapAt]!);
  };

  // The hot loop of every redraw: extremes kept in locals, not re-read.
  for (let i = start; i < end; i++) {
    let b = Math.floor((x[i]! - first) * scale);
    if (b >= bucketCount) b = bucketCount - 1;
    if (b !== bucket) {
      flush();
      bucket = b;
      minAt = maxAt = gapAt = -1;
      min = Infinity;
      max = -Infinity;
    }
    const v = y[i]!;
    if (!Number.isFinite(v)) {
      nonFinite++;
      if (gapAt < 0) gapAt = i;
      continue;
    }
    if (minAt < 0 || v < min) {
      min = v;
      minAt = i;
    }
    if (maxAt < 0 || v > max) {
      max = v;
      maxAt = i;
    }
  }
  flush();

  if (lastKept !== end - 1) keep(end - 1);
  return { x: outX, y: outY, nonFinite, marks };
}

function passThrough(
  x: ArrayLike<number>,
  y: ArrayLike<number>,
  start: number,
  end: number,
): DecimatedSeries {
  const outX: number[] = [];
  const outY: (number | null)[] = [];
  const marks: number[] = [];
  for (let i = start; i < end; i++) {
    const v = y[i]!;
    outX.push(x[i]!);
    if (Number.isFinite(v)) outY.push(v);
    else {
      outY.push(null);
      marks.push(x[i]!);
    }
  }
  return { x: outX, y: outY, nonFinite: marks.length, marks };
}

/** A min–max band reduced for drawing: per bucket, its lowest low and highest high. */
export interface DecimatedBand {
  readonly x: number[];
  readonly low: (number | null)[];
  readonly high: (number | null)[];
}

/**
 * Reduces a band (`low[i] ≤ high[i]` at `x[i]`) over `[from, to)` to two
 * points per bucket (its first and last x) holding the bucket's lowest `low`
 * and highest `high`, so the band drawn never looks narrower than the data.
 * Short slices pass through whole; non-finite edges become `null`.
 */
export function decimateBand(
  x: ArrayLike<number>,
  low: ArrayLike<number>,
  high: ArrayLike<number>,
  buckets: number,
  from = 0,
  to = x.length,
): DecimatedBand {
  const bucketCount = Math.max(1, Math.floor(Number.isFinite(buckets) ? buckets : 1));
  const start = Math.max(0, from);
  const end = Math.min(x.length, low.length, high.length, to);
  const out: { x: number[]; low: (number | null)[]; high: (number | null)[] } = {
    x: [],
    low: [],
    high: [],
  };
  const push = (xv: number, lo: number, hi: number): void => {
    out.x.push(xv);
    out.low.push(Number.isFinite(lo) ? lo : null);
    out.high.push(Number.isFinite(hi) ? hi : null);
  };
  if (end - start < 2 * bucketCount) {
    for (let i = start; i < end; i++) push(x[i]!, low[i]!, high[i]!);
    return out;
  }
  const first = x[start]!;
  const span = x[end - 1]! - first;
  let bucket = -1;
  let firstAt = -1;
  let lastAt = -1;
  let lo = Infinity;
  let hi = -Infinity;
  const flush = (): void => {
    if (firstAt < 0) return;
    push(x[firstAt]!, lo, hi);
    if (lastAt !== firstAt) push(x[lastAt]!, lo, hi);
  };
  for (let i = start; i < end; i++) {
    const b =
      span > 0 ? Math.min(bucketCount - 1, Math.floor(((x[i]! - first) / span) * bucketCount)) : 0;
    if (b !== bucket) {
      flush();
      bucket = b;
      firstAt = i;
      lo = Infinity;
      hi = -Infinity;
    }
    lastAt = i;
    if (Number.isFinite(low[i])) lo = Math.min(lo, low[i]!);
    if (Number.isFinite(high[i])) hi = Math.max(hi, high[i]!);
  }
  flush();
  return out;
}
