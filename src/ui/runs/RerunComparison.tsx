/**
 * For a re-run: per metric, whether its series equals the recorded run's,
 * bit for bit (or, when the two ran on different engines, within
 * `ENGINE_TOLERANCE`); and when one is not bit for bit, what differs between
 * what the two ran on (their fingerprints), or that nothing does.
 */
import {
  compareFingerprints,
  describeFingerprintDifference,
  describeMissingFingerprint,
} from '../../core/run/compare-fingerprints';
import { compareSeries, describeComparison, toleranceFor } from '../../core/run/compare';
import { finishedRunStatuses, type RunRow } from '../../core/run/record';
import { live } from '../../db/live';
import { metricNames, metricSeriesColumns } from '../../db/metrics';
import { getRun } from '../../db/runs';
import { db } from '../db';
import { useLive } from '../live';
import { useRun } from './queries';
import './runs.css';
import './run-record.css';

export function RerunComparison({ run }: { run: RunRow }) {
  const original = run.rerunOf;
  const comparisons = useLive(
    () =>
      live(async () => {
        if (!original || !finishedRunStatuses.includes(run.status)) return undefined;
        // A re-run on another engine (a command-line `cpu` run re-run on WASM) can agree only within a tolerance.
        const tolerance = toleranceFor(await getRun(db, original), run);
        const names = new Set([
          ...(await metricNames(db, original)),
          ...(await metricNames(db, run.id)),
        ]);
        return Promise.all(
          [...names].sort().map(async (name) =>
            compareSeries(
              name,
              // The stored chunks' value columns, copied: no object per point.
              (await metricSeriesColumns(db, original, name)).value,
              (await metricSeriesColumns(db, run.id, name)).value,
              tolerance,
            ),
          ),
        );
      }),
    [original, run.id, run.status],
  );
  const recorded = useRun(original);
  if (!original) return null;
  // Agreeing within a tolerance is no reproduction: what differs in what they ran on still shows.
  const reproduced = comparisons?.every((c) => c.same) ?? true;
  return (
    <section aria-label="Re-run comparison">
      <h3>Compared with run {original.slice(-8)}</h3>
      {comparisons === undefined ? (
        <p className="fb-muted">Compared when this run finishes.</p>
      ) : (
        <ul className="fb-comparison">
          {comparisons.map((c) => (
            <li key={c.metric} className={c.same || c.within ? 'fb-same' : 'fb-differs'}>
              {describeComparison(c)}
            </li>
          ))}
        </ul>
      )}
      {!reproduced && <FingerprintDifferences recorded={recorded} rerun={run} />}
    </section>
  );
}

/** What differs between what the recorded run and the re-run ran on. */
function FingerprintDifferences({ recorded, rerun }: { recorded?: RunRow; rerun: RunRow }) {
  if (!recorded) return <p className="fb-muted">The recorded run is no longer stored.</p>;
  const comparison = compareFingerprints(recorded.fingerprint, rerun.fingerprint);
  return (
    <div aria-label="What differs" role="group" className="fb-fingerprint-diff">
      <h4>What they ran on</h4>
      {!comparison.known ? (
        <p className="fb-muted">{describeMissingFingerprint(comparison.missing)}</p>
      ) : comparison.differences.length === 0 ? (
        <p>
          Nothing differs in what they ran on: the same app build, onnxruntime-web, backend, adapter
          and browser.
        </p>
      ) : (
        <ul className="fb-comparison">
          {comparison.differences.map((d) => (
            <li key={d.key}>{describeFingerprintDifference(d)}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
