/**
 * Live views of runs' metrics for the charts, kept up to date while the
 * engine writes: which metrics the runs have, and one series of each run.
 *
 * A live read over a whole series would re-read it all on every flush, and
 * would starve while a run writes (see `coalesced-reads.ts`). So the live
 * read only watches something one cursor step reads (a run's last point, a
 * series' last point), and each change it reports starts the real read
 * outside it, coalesced; a series already held has its first point read
 * there too, to tell it is still the one stored. A series is followed by a
 * {@link LiveSeries} per run: the first time it reads the series in pieces
 * that leave the page free between them, and after that only the points past
 * the last one it holds — the stored chunk that holds the next step and those
 * after it, as typed columns (see `core/series/live-series.ts` for why what it
 * holds cannot drift).
 *
 * The runs of a view are read together: each read of all of them is one
 * transaction, and their series are brought up side by side, a round of
 * their reads one transaction. Fifty compared runs thus wait for a few
 * transactions, not for a few hundred scheduled one after another.
 */
import type { RunId } from '../core/run/record';
import type { MetricColumns, MetricPoint } from '../core/series/columns';
import { LiveSeries } from '../core/series/live-series';
import { coalesced } from './coalesced-reads';
import { live, type Live } from './live';
import {
  lastMetricKeysOfRuns,
  metricColumnsReader,
  metricNamesOfRuns,
  metricSeriesFirstOfRuns,
  metricSeriesLastOfRuns,
} from './metrics-of-runs';
import type { FlowbenchDb } from './schema';

/**
 * Names of the metrics any of the runs has points for, sorted: read again
 * each time one of the runs writes a metric, and told only when they change.
 * A failed read is told to `error` and the watch goes on.
 */
export function liveMetricNamesOfRuns(db: FlowbenchDb, runIds: readonly RunId[]): Live<string[]> {
  return {
    subscribe({ next, error }) {
      let closed = false;
      let told: string[] | undefined;
      const update = coalesced(
        async () => {
          const names = await metricNamesOfRuns(db, runIds);
          const sorted = [...new Set(names.flat())].sort();
          if (closed || (told && sameNames(told, sorted))) return;
          told = sorted;
          next?.(sorted);
        },
        () => closed,
      );
      const failed = (reason: unknown) => {
        if (!closed) error?.(reason);
      };
      const watch = live(() => lastMetricKeysOfRuns(db, runIds)).subscribe({
        next: () => void update().catch(failed),
        error: failed,
      });
      return {
        unsubscribe() {
          closed = true;
          watch.unsubscribe();
        },
      };
    },
  };
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((name, i) => name === b[i]);
}

/**
 * The series `name` of each run, in the order of `runIds`, told again as the
 * engine commits points (and now and then during a long first read, so a
 * chart fills in as it goes). Changes that land during an update are
 * coalesced into one more after it. A failed read is told to `error` and the
 * watch goes on.
 */
export function liveMetricSeriesOfRuns(
  db: FlowbenchDb,
  runIds: readonly RunId[],
  name: string,
): Live<MetricColumns[]> {
  return {
    subscribe({ next, error }) {
      let closed = false;
      // The runs' series are brought up together: each round of their reads is one transaction.
      const readColumns = metricColumnsReader(db);
      const series = runIds.map(
        (runId) =>
          new LiveSeries({
            readAfter: (after, limit) => readColumns({ runId, name, after, limit }),
          }),
      );
      const publish = () => {
        if (!closed) next?.(series.map((s) => s.snapshot()));
      };
      let latest: (MetricPoint | undefined)[] = [];
      const update = coalesced(
        async () => {
          const lasts = latest;
          const firsts = await firstPointsHeld(db, runIds, name, series);
          await Promise.all(
            series.map((followed, i) =>
              followed.update({ first: firsts[i], last: lasts[i] }, publish, () => closed),
            ),
          );
          publish();
        },
        () => closed,
      );
      const failed = (reason: unknown) => {
        if (!closed) error?.(reason);
      };
      const watch = live(() => metricSeriesLastOfRuns(db, runIds, name)).subscribe({
        next: (lasts) => {
          latest = lasts;
          void update().catch(failed);
        },
        error: failed,
      });
      return {
        unsubscribe() {
          closed = true;
          watch.unsubscribe();
        },
      };
    },
  };
}

/**
 * The first point the store holds of each series `followed` holds points of
 * (`undefined` for the others), all in one transaction: a series held is
 * checked to be still the one stored (see `LiveSeries`), and a series not
 * held yet needs no check, so a chart's first read waits for none.
 */
async function firstPointsHeld(
  db: FlowbenchDb,
  runIds: readonly RunId[],
  name: string,
  followed: readonly LiveSeries[],
): Promise<(MetricPoint | undefined)[]> {
  const held = runIds.filter((_, i) => followed[i]!.snapshot().length > 0);
  if (held.length === 0) return [];
  const firsts = new Map(
    (await metricSeriesFirstOfRuns(db, held, name)).map((first, i) => [held[i]!, first]),
  );
  return runIds.map((id) => firsts.get(id));
}
