/** Live reads of run records: components re-render when the worker commits. */
import { Dexie, liveQuery } from 'dexie';
import { useLiveQuery } from 'dexie-react-hooks';
import { useEffect, useState } from 'react';
import type { MetricRow, RunId, RunNodeRow, RunRow } from '../../core/run/record';
import { listRuns, metricNames, metricSeries, runNodes } from '../../db/runs';
import { db } from '../db';
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

/** Names of the metrics any of the runs has points for, sorted. */
export function useMetricNamesOfRuns(ids: readonly RunId[]): string[] | undefined {
  const key = idsKey(ids);
  return useLiveQuery(async () => {
    const names = await Promise.all(idsOf(key).map((id) => metricNames(db, id)));
    return [...new Set(names.flat())].sort();
  }, [key]);
}

/**
 * One metric series of each run, in the order of `ids`, re-read whenever the
 * engine commits points of any of them: the chart draws what IndexedDB holds.
 *
 * A plain live query over the whole series would starve while a run writes:
 * Dexie aborts a live query that is still reading when the next write lands,
 * so once reading the series takes longer than the gap between flushes, no
 * result is ever delivered and the chart freezes. So the live query only
 * watches each series' last point (one cursor step, done long before the next
 * flush), and each change starts a full read that is never aborted; changes
 * that land during a read are coalesced into one more read after it.
 */
export function useMetricSeriesOfRuns(
  ids: readonly RunId[],
  name: string,
): MetricRow[][] | undefined {
  const store = useEditorStore();
  const key = `${idsKey(ids)}\n${name}`;
  const [read, setRead] = useState<{ key: string; rows: MetricRow[][] }>();
  useEffect(() => {
    const runIds = idsOf(key.slice(0, key.lastIndexOf('\n')));
    let closed = false;
    let reading = false;
    // Bumped by every change; a read covers the changes seen before it began.
    let changes = 0;
    const failed = (error: unknown) => {
      if (!closed) store.getState().alert(`Could not read the series ${name}: ${String(error)}`);
    };
    const readAll = async () => {
      changes++;
      if (reading) return;
      reading = true;
      try {
        let covered: number;
        do {
          covered = changes;
          const rows = await Promise.all(runIds.map((id) => metricSeries(db, id, name)));
          if (!closed) setRead({ key, rows });
        } while (covered !== changes && !closed);
      } finally {
        reading = false;
      }
    };
    const lastPoints = liveQuery(() =>
      Promise.all(
        runIds.map((id) =>
          db.metrics
            .where('[runId+name+step]')
            .between([id, name, Dexie.minKey], [id, name, Dexie.maxKey])
            .last(),
        ),
      ),
    );
    const subscription = lastPoints.subscribe({
      next: () => void readAll().catch(failed),
      error: failed,
    });
    return () => {
      closed = true;
      subscription.unsubscribe();
    };
  }, [key, name, store]);
  return read?.key === key ? read.rows : undefined;
}
