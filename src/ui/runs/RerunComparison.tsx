/** For a re-run: per metric, whether its series equals the recorded run's, bit for bit. */
import { compareSeries, describeComparison } from '../../core/run/compare';
import { finishedRunStatuses, type RunRow } from '../../core/run/record';
import { live } from '../../db/live';
import { metricNames, metricSeries } from '../../db/metrics';
import { db } from '../db';
import { useLive } from '../live';
import './runs.css';

export function RerunComparison({ run }: { run: RunRow }) {
  const original = run.rerunOf;
  const comparisons = useLive(
    () =>
      live(async () => {
        if (!original || !finishedRunStatuses.includes(run.status)) return undefined;
        const names = new Set([
          ...(await metricNames(db, original)),
          ...(await metricNames(db, run.id)),
        ]);
        return Promise.all(
          [...names].sort().map(async (name) =>
            compareSeries(
              name,
              (await metricSeries(db, original, name)).map((p) => p.value),
              (await metricSeries(db, run.id, name)).map((p) => p.value),
            ),
          ),
        );
      }),
    [original, run.id, run.status],
  );
  if (!original) return null;
  return (
    <section aria-label="Re-run comparison">
      <h3>Compared with run {original.slice(-8)}</h3>
      {comparisons === undefined ? (
        <p className="fb-muted">Compared when this run finishes.</p>
      ) : (
        <ul className="fb-comparison">
          {comparisons.map((c) => (
            <li key={c.metric} className={c.same ? 'fb-same' : 'fb-differs'}>
              {describeComparison(c)}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
