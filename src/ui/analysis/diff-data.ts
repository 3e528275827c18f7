/**
 * What the run diff reads of two stored runs: their rows and, per metric
 * either has, both series' values (the stored chunks' value columns, no
 * object per point). Read once when the diff opens: a diff is a snapshot of
 * two runs, mostly finished ones.
 */
import {
  diffFingerprints,
  diffFlows,
  diffMetric,
  diffParams,
  type FingerprintRow,
  type FlowDiff,
  type MetricDiff,
  type ParamDiff,
} from '../../core/run/diff';
import { toleranceFor } from '../../core/run/compare';
import { runValues } from '../../core/run/params';
import type { RunId, RunRow } from '../../core/run/record';
import { seriesOfRun } from '../../db/cache-links';
import { metricSeriesColumns } from '../../db/metrics';
import { getRun } from '../../db/runs';
import { db } from '../db';

/** Two runs compared: A the older, B the newer. */
export interface RunDiffData {
  readonly a: RunRow;
  readonly b: RunRow;
  readonly params: readonly ParamDiff[];
  readonly flow: FlowDiff;
  readonly fingerprints: readonly FingerprintRow[];
  readonly metrics: readonly MetricDiff[];
}

/** Read and compare runs `first` and `second` (in either order; ids are time-ordered). */
export async function readRunDiff(first: RunId, second: RunId): Promise<RunDiffData> {
  const [older, newer] = first < second ? [first, second] : [second, first];
  const [a, b] = await Promise.all([getRun(db, older), getRun(db, newer)]);
  if (!a || !b) throw new Error(`Run ${(a ? newer : older).slice(-8)} is no longer stored`);
  // A cached node's series are the run's that computed it.
  const [sa, sb] = await Promise.all([seriesOfRun(db, a.id), seriesOfRun(db, b.id)]);
  const names = [...new Set([...sa.names, ...sb.names])];
  // Runs on different engines (a `cpu` run from the command line and a browser's) agree within a tolerance at best.
  const tolerance = toleranceFor(a, b);
  const metrics = await Promise.all(
    names
      .sort()
      .map(async (name) =>
        diffMetric(
          name,
          (await metricSeriesColumns(db, sa.runOf(name), name)).value,
          (await metricSeriesColumns(db, sb.runOf(name), name)).value,
          tolerance,
        ),
      ),
  );
  return {
    a,
    b,
    params: diffParams(runValues(a), runValues(b)),
    flow: diffFlows(a.flowSnapshot, b.flowSnapshot),
    fingerprints: diffFingerprints(a.fingerprint, b.fingerprint),
    metrics,
  };
}
