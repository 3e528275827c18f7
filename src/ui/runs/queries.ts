/** Live reads of run records: components re-render when the worker commits. */
import { liveQuery } from 'dexie';
import { useLiveQuery } from 'dexie-react-hooks';
import { useEffect, useState } from 'react';
import type { IntervalRow, RunId, RunNodeRow, RunRow } from '../../core/run/record';
import type { MetricColumns } from '../../core/series/columns';
import { LiveSeries, type SeriesEnds } from '../../core/series/live-series';
import { listRuns, metricNames, runNodes } from '../../db/runs';
import {
  lastMetricOfRun,
  metricPointsAfter,
  metricSeriesEnds,
  runIntervals,
} from '../../db/series';
import { db } from '../db';
import { coalesced } from './coalesced-reads';
import { useEditor, useEditorStore } from '../store/context';

export function useRuns(): RunRow[] | undefined {
  return useLiveQuery(() => listRuns(db), []);
}

export function useRun(id: RunId | null): RunRow | undefined {
  return useLiveQuery(() => (id ? db.runs.get(id) : undefined), [id]);
}

/** The run whose state the canvas and the detail panel show: the selected one. */
export function useSelectedRun(): RunRow | undefined {
  const id = useEditor((s) => s.selectedRun);
  return useRun(id);
}

export function useRunNodes(id: RunId | null): RunNodeRow[] | undefined {
  return useLiveQuery(() => (id ? runNodes(db, id) : []), [id]);
}

/** Ids as one dependency: a new array with the same ids must not re-subscribe. */
function idsKey(ids: readonly RunId[]): string {
  return ids.join(' ');
}

function idsOf(key: string): RunId[] {
  return key === '' ? [] : (key.split(' ') as RunId[]);
}

/** Several runs, in the order of `ids`; ids no longer stored are left out. */
export function useRunsByIds(ids: readonly RunId[]): RunRow[] | undefined {
  const key = idsKey(ids);
  return useLiveQuery(async () => {
    const rows = await db.runs.bulkGet(idsOf(key));
    return rows.filter((row): row is RunRow => row !== undefined);
  }, [key]);
}

/** The runs of a sweep group (none for `null`). */
export function useGroupRuns(groupId: string | null): RunRow[] | undefined {
  return useLiveQuery(
    () => (groupId ? db.runs.where('groupId').equals(groupId).toArray() : []),
    [groupId],
  );
}

/**
 * Names of the metrics any of the runs has points for, sorted: read again
 * each time one of the runs writes a metric (see `coalesced-reads.ts` for
 * why the read is not the live query itself).
 */
export function useMetricNamesOfRuns(ids: readonly RunId[]): string[] | undefined {
  const store = useEditorStore();
  const key = idsKey(ids);
  const [read, setRead] = useState<{ key: string; names: string[] }>();
  useEffect(() => {
    const runIds = idsOf(key);
    let closed = false;
    const update = coalesced(
      async () => {
        const names = await Promise.all(runIds.map((id) => metricNames(db, id)));
        const sorted = [...new Set(names.flat())].sort();
        if (closed) return;
        setRead((held) =>
          held?.key === key && sameNames(held.names, sorted) ? held : { key, names: sorted },
        );
      },
      () => closed,
    );
    const failed = (error: unknown) => {
      if (!closed) store.getState().alert(`Could not read the runs' metrics: ${String(error)}`);
    };
    const subscription = liveQuery(() =>
      Promise.all(runIds.map((id) => lastMetricOfRun(db, id))),
    ).subscribe({ next: () => void update().catch(failed), error: failed });
    return () => {
      closed = true;
      subscription.unsubscribe();
    };
  }, [key, store]);
  return read?.key === key ? read.names : undefined;
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((name, i) => name === b[i]);
}

/**
 * One metric series of each run, in the order of `ids`, kept up to date as
 * the engine commits points: the chart draws what IndexedDB holds.
 *
 * A live query over the whole series would re-read it all on every flush,
 * and would starve while a run writes (see `coalesced-reads.ts`). So the
 * live query only watches each series' first and last point (two cursor
 * steps), and each change brings a {@link LiveSeries} per run up to date:
 * the first time it reads the series in chunks that leave the page free
 * between them, and after that only the points past the last one it holds
 * (see `core/series/live-series.ts` for why what it holds cannot drift).
 * Changes that land during an update are coalesced into one more after it.
 */
export function useMetricSeriesOfRuns(
  ids: readonly RunId[],
  name: string,
): MetricColumns[] | undefined {
  const store = useEditorStore();
  const key = `${idsKey(ids)}\n${name}`;
  const [read, setRead] = useState<{ key: string; rows: MetricColumns[] }>();
  useEffect(() => {
    const runIds = idsOf(key.slice(0, key.lastIndexOf('\n')));
    let closed = false;
    const series = runIds.map(
      (id) =>
        new LiveSeries({
          readAfter: (after, limit) => metricPointsAfter(db, id, name, after, limit),
        }),
    );
    const publish = () => {
      if (!closed) setRead({ key, rows: series.map((s) => s.snapshot()) });
    };
    let latest: SeriesEnds[] = [];
    const update = coalesced(
      async () => {
        const ends = latest;
        for (const [i, live] of series.entries()) {
          const end = ends[i];
          if (end) await live.update(end, publish, () => closed);
        }
        publish();
      },
      () => closed,
    );
    const failed = (error: unknown) => {
      if (!closed) store.getState().alert(`Could not read the series ${name}: ${String(error)}`);
    };
    const subscription = liveQuery(() =>
      Promise.all(runIds.map((id) => metricSeriesEnds(db, id, name))),
    ).subscribe({
      next: (ends) => {
        latest = ends;
        void update().catch(failed);
      },
      error: failed,
    });
    return () => {
      closed = true;
      subscription.unsubscribe();
    };
  }, [key, name, store]);
  return read?.key === key ? read.rows : undefined;
}

/** A run's wait intervals (the data engine's `data_wait` …), live. */
export function useRunIntervals(id: RunId | null): IntervalRow[] | undefined {
  return useLiveQuery(() => (id ? runIntervals(db, id) : []), [id]);
}
