/** Live reads of run records: components re-render when the worker commits. */
import { useMemo } from 'react';
import type { IntervalRow, RunId, RunNodeRow, RunRow } from '../../core/run/record';
import type { MetricColumns } from '../../core/series/columns';
import { runIntervals } from '../../db/intervals';
import { live } from '../../db/live';
import { liveMetricNamesOfRuns, liveMetricSeriesOfRuns } from '../../db/metrics-live';
import { liveRunNodes } from '../../db/run-nodes';
import { liveCachedNodesOfRuns, type CachedNode } from '../../db/cache-links';
import { liveRun, runsByIds } from '../../db/runs';
import { liveRunList } from '../../db/run-list';
import type { RunEntry } from '../../core/run/run-entry';
import { db } from '../db';
import { useLive } from '../live';
import { useEditor, useEditorStore } from '../store/context';

/**
 * Every run as the lists show it (its list entry, not its row), newest
 * first; a change to one run reads that run's entry alone.
 */
export function useRunList(): readonly RunEntry[] | undefined {
  return useLive(() => liveRunList(db), []);
}

export function useRun(id: RunId | null): RunRow | undefined {
  // Fresh: right after another run is selected, the one selected before must not stand in for it
  // (the toolbar would cancel it, the panel export it).
  return useLive(() => (id ? liveRun(db, id) : live(() => undefined)), [id], { fresh: true });
}

/** The run whose state the canvas and the detail panel show: the selected one. */
export function useSelectedRun(): RunRow | undefined {
  const id = useEditor((s) => s.selectedRun);
  return useRun(id);
}

/** A run's node outcomes, live; one read however many views watch the same run. */
export function useRunNodes(id: RunId | null): RunNodeRow[] | undefined {
  return useLive(() => (id ? liveRunNodes(db, id) : live(() => [])), [id]);
}

/** The cached nodes of runs `ids`, live: `[run, node, the run that computed it]`. */
export function useCachedNodesOfRuns(ids: readonly RunId[]): CachedNode[] | undefined {
  const key = idsKey(ids);
  return useLive(() => liveCachedNodesOfRuns(db, idsOf(key)), [key]);
}

/** Ids as one dependency: a new array with the same ids must not re-subscribe. */
function idsKey(ids: readonly RunId[]): string {
  return ids.join(' ');
}

function idsOf(key: string): RunId[] {
  return key === '' ? [] : (key.split(' ') as RunId[]);
}

/** Whether the ids of one key are all among the other's: runs were only added, or only taken away. */
function addedOrRemoved(before: string, now: string): boolean {
  const [fewer, more] = [idsOf(before), idsOf(now)].sort((a, b) => a.length - b.length);
  const ids = new Set(more);
  return fewer!.every((id) => ids.has(id));
}

/** Several runs, in the order of `ids`; ids no longer stored are left out. */
export function useRunsByIds(ids: readonly RunId[]): RunRow[] | undefined {
  const key = idsKey(ids);
  return useLive(() => live(() => runsByIds(db, idsOf(key))), [key]);
}

/** The runs of a sweep group (none for `null`), as the lists show them. */
export function useGroupRuns(groupId: string | null): readonly RunEntry[] | undefined {
  const runs = useRunList();
  return useMemo(
    () => (groupId === null ? [] : runs?.filter((run) => run.groupId === groupId)),
    [runs, groupId],
  );
}

/**
 * Names of the metrics any of the runs has points for, sorted, read again
 * each time one of the runs writes a metric (see `db/metrics-live.ts`).
 * While runs are added to those shown or taken away, the names read before
 * stay until the new ones come: the charts are kept, not taken down and
 * drawn anew (a chart of a metric only a run taken away had shows no curve
 * for that moment). Any other change of runs reads them afresh.
 */
export function useMetricNamesOfRuns(ids: readonly RunId[]): string[] | undefined {
  const store = useEditorStore();
  const key = idsKey(ids);
  return useLive(() => liveMetricNamesOfRuns(db, idsOf(key)), [key], {
    fresh: ([before], [now]) => !addedOrRemoved(before as string, now as string),
    failed: (error) => store.getState().alert(`Could not read the runs' metrics: ${String(error)}`),
  });
}

/**
 * One metric series of each run, in the order of `ids`, kept up to date as
 * the engine commits points: the chart draws what IndexedDB holds. Reads
 * only the points past the last one held, a long series in chunks (see
 * `db/metrics-live.ts`).
 */
export function useMetricSeriesOfRuns(
  ids: readonly RunId[],
  name: string,
): MetricColumns[] | undefined {
  const store = useEditorStore();
  const key = idsKey(ids);
  return useLive(() => liveMetricSeriesOfRuns(db, idsOf(key), name), [key, name], {
    fresh: true,
    failed: (error) =>
      store.getState().alert(`Could not read the series ${name}: ${String(error)}`),
  });
}

/** A run's wait intervals (the data engine's `data_wait` …), live. */
export function useRunIntervals(id: RunId | null): IntervalRow[] | undefined {
  return useLive(() => live(() => (id ? runIntervals(db, id) : [])), [id]);
}
