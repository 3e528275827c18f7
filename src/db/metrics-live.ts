/**
 * Live views of runs' metrics for the charts, kept up to date while the
 * engine writes: which metrics the runs have, and one series of each run.
 *
 * A live read over a whole series would re-read it all on every flush, and
 * would starve while a run writes (see `coalesced-reads.ts`). So the live
 * read only watches something one cursor step reads (a run's last point, a
 * series' two ends), and each change it reports starts the real read outside
 * it, coalesced. A series is followed by a {@link LiveSeries} per run: the
 * first time it reads the series in pieces that leave the page free between
 * them, and after that only the points past the last one it holds — the
 * stored chunk that holds the next step and those after it, as typed columns
 * (see `core/series/live-series.ts` for why what it holds cannot drift).
 */
import type { RunId } from '../core/run/record';
import type { MetricColumns } from '../core/series/columns';
import { LiveSeries, type SeriesEnds } from '../core/series/live-series';
import { coalesced } from './coalesced-reads';
import { live, type Live } from './live';
import { lastMetricOfRun, metricColumnsAfter, metricNames, metricSeriesEnds } from './metrics';
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
          const names = await Promise.all(runIds.map((id) => metricNames(db, id)));
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
      const watch = live(() => Promise.all(runIds.map((id) => lastMetricOfRun(db, id)))).subscribe({
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
      const series = runIds.map(
        (id) =>
          new LiveSeries({
            readAfter: (after, limit) => metricColumnsAfter(db, id, name, after, limit),
          }),
      );
      const publish = () => {
        if (!closed) next?.(series.map((s) => s.snapshot()));
      };
      let latest: SeriesEnds[] = [];
      const update = coalesced(
        async () => {
          const ends = latest;
          for (const [i, followed] of series.entries()) {
            const end = ends[i];
            if (end) await followed.update(end, publish, () => closed);
          }
          publish();
        },
        () => closed,
      );
      const failed = (reason: unknown) => {
        if (!closed) error?.(reason);
      };
      const watch = live(() =>
        Promise.all(runIds.map((id) => metricSeriesEnds(db, id, name))),
      ).subscribe({
        next: (ends) => {
          latest = ends;
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
