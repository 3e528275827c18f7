/**
 * Min/max decimation of a metric series for drawing.
 *
 * A chart a few hundred pixels wide cannot show more than two values per pixel
 * column: the lowest and the highest. So the series is cut into `buckets` equal
 * ranges of step, and each range keeps only its min and its max, in step order.
 * A loss spike survives (it is some bucket's max), and the work of drawing grows
 * with the chart's width, not with how long the run has been training. The last
 * point is always kept, so the line ends where the run is now.
 *
 * Non-finite values (NaN, ±Infinity) are not drawn as values: they become `null`,
 * which uPlot draws as a gap, and they are counted so the summary can say so.
 * A bucket holding only non-finite values keeps one `null`, so a run that
 * diverged shows a gap instead of a line bridging over the damage.
 */

/** One metric point as stored in a run record: `[step, value, ts]`. */
export type ChartPoint = readonly [step: number, value: number, ts: number];

/** x/y columns ready for uPlot's `setData([x, y])`. */
export interface DecimatedSeries {
  /** Steps, ascending. */
  readonly x: number[];
  /** Values; `null` where the value was not finite (uPlot draws a gap). */
  readonly y: (number | null)[];
  /** How many points of the whole input had a non-finite value. */
  readonly nonFinite: number;
}

/**
 * Reduces `points` (ascending by step) to at most `2 × buckets + 1` points by
 * keeping, per equal range of step, the min and the max value in step order,
 * plus the series' last point. Series shorter than `2 × buckets` pass through
 * unchanged (apart from non-finite values becoming `null`).
 */
export function decimate(points: readonly ChartPoint[], buckets: number): DecimatedSeries {
  const bucketCount = Math.max(1, Math.floor(Number.isFinite(buckets) ? buckets : 1));
  const firstPoint = points[0];
  const lastPoint = points.at(-1);
  if (points.length < 2 * bucketCount || !firstPoint || !lastPoint) return passThrough(points);

  const x: number[] = [];
  const y: (number | null)[] = [];
  let nonFinite = 0;
  const keep = (p: ChartPoint): void => {
    x.push(p[0]);
    y.push(Number.isFinite(p[1]) ? p[1] : null);
  };

  const first = firstPoint[0];
  const span = lastPoint[0] - first;
  // The current bucket's extremes and its first non-finite point, with their indexes.
  let bucket = -1;
  let min: ChartPoint | undefined;
  let max: ChartPoint | undefined;
  let gap: ChartPoint | undefined;
  let minAt = -1;
  let maxAt = -1;
  let gapAt = -1;
  let lastKept = -1;

  const flush = (): void => {
    if (min && max) {
      const [a, b] = minAt <= maxAt ? [min, max] : [max, min];
      keep(a);
      if (minAt !== maxAt) keep(b);
      lastKept = Math.max(minAt, maxAt);
    } else if (gap) {
      keep(gap);
      lastKept = gapAt;
    }
  };

  for (let i = 0; i < points.length; i++) {
    const p = points[i];
    if (!p) continue;
    // A zero span (every point on one step) puts everything in bucket 0.
    const b =
      span > 0 ? Math.min(bucketCount - 1, Math.floor(((p[0] - first) / span) * bucketCount)) : 0;
    if (b !== bucket) {
      flush();
      bucket = b;
      min = max = gap = undefined;
      minAt = maxAt = gapAt = -1;
    }
    if (!Number.isFinite(p[1])) {
      nonFinite++;
      if (!gap) {
        gap = p;
        gapAt = i;
      }
      continue;
    }
    if (!min || p[1] < min[1]) {
      min = p;
      minAt = i;
    }
    if (!max || p[1] > max[1]) {
      max = p;
      maxAt = i;
    }
  }
  flush();

  if (lastKept !== points.length - 1) keep(lastPoint);
  return { x, y, nonFinite };
}

function passThrough(points: readonly ChartPoint[]): DecimatedSeries {
  const x = points.map((p) => p[0]);
  const y = points.map((p) => (Number.isFinite(p[1]) ? p[1] : null));
  const nonFinite = y.reduce<number>((n, v) => (v === null ? n + 1 : n), 0);
  return { x, y, nonFinite };
}
