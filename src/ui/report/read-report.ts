/**
 * Gathers a comparison's report from the database: the shown runs, every
 * point of each charted metric (a cached node's series are the run's that
 * computed it, as in the charts), each run's final values and fingerprint,
 * and the run diff of the first two runs. Read once, when the person asks.
 */
import { describeEdgeChange, describeNodeChange } from '../../core/run/diff';
import { fingerprintFacts } from '../../core/run/fingerprint';
import { runValues } from '../../core/run/params';
import type { RunRow } from '../../core/run/record';
import { seriesOfRun } from '../../db/cache-links';
import { smoothEma } from '../../core/series/ema';
import { metricSeriesColumns } from '../../db/metrics';
import { readRunDiff } from '../analysis/diff-data';
import type { ChartSettings, ShownRun } from '../charts/plot-model';
import { db } from '../db';
import type { ParallelView } from '../../core/run/parallel';
import type { ReportData, ReportMetric, ReportRun, ReportSeries } from './report-data';
import { reportGroups } from './report-groups';

const finite = (value: number) => (Number.isFinite(value) ? value : null);

/** A run `shown` does not name (never, in practice): by its id, grouped by its own params. */
const shownAs = (run: RunRow): ShownRun => {
  const { params, seed } = runValues(run);
  return { id: run.id, label: run.id, colour: '#888888', params, seed };
};

/** The report of `runs` (shown as `shown`, same order) over `metrics`, under `settings`. */
export async function readReport(
  runs: readonly RunRow[],
  shown: readonly ShownRun[],
  metrics: readonly string[],
  settings: ChartSettings,
  parallel: ParallelView | null = null,
): Promise<ReportData> {
  const sources = await Promise.all(runs.map((run) => seriesOfRun(db, run.id)));
  const finals: Record<string, number>[] = runs.map(() => ({}));
  const charted: ReportMetric[] = await Promise.all(
    metrics.map(async (name) => {
      const read = await Promise.all(
        runs.map(async (run, i) => {
          if (!sources[i]!.names.includes(name)) return null;
          const columns = await metricSeriesColumns(db, sources[i]!.runOf(name), name);
          const value = Array.from(columns.value, finite);
          const last = value.findLast((v) => v !== null);
          if (last !== undefined) finals[i]![name] = last;
          const series: ReportSeries = {
            run: run.id,
            step: Array.from(columns.step),
            value,
            ts: Array.from(columns.ts),
            // Smoothed over the whole series, as the charts do.
            ...(settings.smoothing > 0 && {
              smoothed: Array.from(smoothEma(columns.value, settings.smoothing), finite),
            }),
          };
          return { series, columns, shown: shown[i] ?? shownAs(run) };
        }),
      );
      const charting = read.filter((r) => r !== null);
      const groups = reportGroups(
        charting.map((r) => r.shown),
        charting.map((r) => r.columns),
        settings,
      );
      return { name, series: charting.map((r) => r.series), ...(groups && { groups }) };
    }),
  );
  const reportRuns: ReportRun[] = runs.map((run, i) => {
    const values = runValues(run);
    return {
      id: run.id,
      label: shown[i]?.label ?? run.id,
      colour: shown[i]?.colour ?? '#888888',
      flow: run.flowSnapshot.name,
      status: run.status,
      seed: values.seed,
      params: values.params,
      result: run.result,
      facts: run.fingerprint
        ? fingerprintFacts(run.fingerprint)
            .filter((fact) => !fact.detail)
            .map((fact) => ({ label: fact.label, value: fact.value }))
        : [],
      finals: finals[i]!,
    };
  });
  const first = runs[0];
  const second = runs[1];
  const diff = first && second ? await readRunDiff(first.id, second.id) : null;
  const flows = [...new Set(runs.map((run) => run.flowSnapshot.name))];
  return {
    title: `Flowbench report: ${flows.join(', ')}`,
    created: new Date().toISOString(),
    settings: {
      xMode: settings.xMode,
      log: settings.log,
      logX: settings.logX,
      smoothing: settings.smoothing,
      groupBy: settings.groupBy,
    },
    runs: reportRuns,
    metrics: charted,
    parallel,
    diff: diff && {
      a: diff.a.id,
      b: diff.b.id,
      params: diff.params,
      flow: [
        ...diff.flow.nodes.map(describeNodeChange),
        ...diff.flow.edges.map(describeEdgeChange),
      ],
      fingerprints: diff.fingerprints,
      metrics: diff.metrics,
    },
  };
}
