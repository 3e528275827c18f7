/**
 * The y range a chart shows.
 *
 * By default every finite value fits. "Ignore outliers", as in TensorBoard,
 * fits the 5th to 95th percentile instead, so one early loss of 40 does not
 * squash a curve that then lives between 0.1 and 0.3; the outliers run off
 * the plot instead of setting its scale. A log scale only fits positive
 * values, since zero and below have no place on it.
 */

/** How to fit the range. */
export interface RangeOptions {
  readonly ignoreOutliers: boolean;
  readonly log: boolean;
}

const LOWER_QUANTILE = 0.05;
const UPPER_QUANTILE = 0.95;
/** Room left above and below the data, as a share of its span. */
const PADDING = 0.05;

/** The q-quantile of ascending `sorted`, interpolating between neighbours. */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return NaN;
  const at = (sorted.length - 1) * q;
  const below = Math.floor(at);
  const above = Math.min(sorted.length - 1, below + 1);
  return sorted[below]! + (sorted[above]! - sorted[below]!) * (at - below);
}

/**
 * `[min, max]` that fits the drawable values of `columns` (null, undefined and
 * non-finite ones skipped; non-positive ones too on a log scale), padded a
 * little; `null` when nothing is drawable.
 */
export function valueRange(
  columns: Iterable<ArrayLike<number | null | undefined>>,
  options: RangeOptions,
): [number, number] | null {
  const values: number[] = [];
  for (const column of columns)
    for (let i = 0; i < column.length; i++) {
      const v = column[i];
      if (typeof v === 'number' && Number.isFinite(v) && (!options.log || v > 0)) values.push(v);
    }
  if (values.length === 0) return null;
  let lo: number;
  let hi: number;
  if (options.ignoreOutliers) {
    const sorted = Float64Array.from(values).sort();
    lo = quantile(sorted, LOWER_QUANTILE);
    hi = quantile(sorted, UPPER_QUANTILE);
  } else {
    lo = hi = values[0]!;
    for (const v of values) {
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  if (options.log) {
    if (lo === hi) return [lo / 2, hi * 2];
    const factor = Math.pow(hi / lo, PADDING);
    return [lo / factor, hi * factor];
  }
  if (lo === hi) {
    const pad = Math.abs(lo) * 0.1 || 1;
    return [lo - pad, hi + pad];
  }
  const pad = (hi - lo) * PADDING;
  return [lo - pad, hi + pad];
}
