/**
 * Comparing two recordings of a metric, value for value, as a re-run does to
 * prove a run reproduces. Equality is `Object.is`, so NaN equals NaN and -0
 * differs from 0: the question is "is this the same series bit for bit".
 */

export type SeriesComparison =
  | { metric: string; same: true; count: number }
  | {
      metric: string;
      same: false;
      /** First step where they differ (or where one series ends). */
      step: number;
      recorded: number | undefined;
      rerun: number | undefined;
    };

export function compareSeries(
  metric: string,
  recorded: ArrayLike<number>,
  rerun: ArrayLike<number>,
): SeriesComparison {
  const length = Math.max(recorded.length, rerun.length);
  for (let step = 0; step < length; step++)
    if (!Object.is(recorded[step], rerun[step]))
      return { metric, same: false, step, recorded: recorded[step], rerun: rerun[step] };
  return { metric, same: true, count: length };
}

export function describeComparison(c: SeriesComparison): string {
  if (c.same) return `${c.metric}: identical (${c.count} points)`;
  const show = (v: number | undefined) => (v === undefined ? 'no point' : String(v));
  return `${c.metric}: differs from step ${c.step} (recorded ${show(c.recorded)}, re-run ${show(c.rerun)})`;
}
