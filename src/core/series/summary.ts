/**
 * The text a chart says in words: how many points, the latest value, the
 * range, and how many values were not finite. Screen readers read it in place
 * of the canvas, and tests read it to check what the chart is showing.
 */

/** What a series amounts to, computed over every point (not the decimated ones). */
export interface SeriesSummary {
  readonly count: number;
  /** The last point's value, finite or not; `undefined` when there are no points. */
  readonly last: number | undefined;
  /** Smallest and largest finite value; `undefined` when no value is finite. */
  readonly min: number | undefined;
  readonly max: number | undefined;
  readonly nonFinite: number;
}

/** Counts and extremes of `values`, ignoring non-finite values for min and max. */
export function summarizeSeries(values: ArrayLike<number>): SeriesSummary {
  let min: number | undefined;
  let max: number | undefined;
  let nonFinite = 0;
  for (let i = 0; i < values.length; i++) {
    const value = values[i]!;
    if (!Number.isFinite(value)) {
      nonFinite++;
      continue;
    }
    if (min === undefined || value < min) min = value;
    if (max === undefined || value > max) max = value;
  }
  const count = values.length;
  return { count, last: count > 0 ? values[count - 1] : undefined, min, max, nonFinite };
}

/**
 * One line such as `12 points · last 0.41 · min 0.39 · max 0.7 · 2 non-finite`;
 * `0 points · waiting for data` before the first point arrives.
 */
export function formatSummary(s: SeriesSummary): string {
  if (s.count === 0 || s.last === undefined) return '0 points · waiting for data';
  const parts = [
    `${String(s.count)} ${s.count === 1 ? 'point' : 'points'}`,
    `last ${formatValue(s.last)}`,
  ];
  if (s.min !== undefined) parts.push(`min ${formatValue(s.min)}`);
  if (s.max !== undefined) parts.push(`max ${formatValue(s.max)}`);
  if (s.nonFinite > 0) parts.push(`${String(s.nonFinite)} non-finite`);
  return parts.join(' · ');
}

/**
 * Three significant digits without trailing zeros (whole numbers from 1000 up);
 * exponent notation for very large or very small magnitudes. `NaN`, `Infinity`
 * and `-Infinity` as JavaScript spells them.
 */
export function formatValue(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  if (v === 0) return '0';
  const magnitude = Math.abs(v);
  if (magnitude >= 1e6 || magnitude < 1e-3) {
    const [mantissa = '', exponent = ''] = v.toExponential(2).split('e');
    return `${mantissa.replace(/\.?0+$/, '')}e${exponent}`;
  }
  if (magnitude >= 1000) return String(Math.round(v));
  return String(Number(v.toPrecision(3)));
}
