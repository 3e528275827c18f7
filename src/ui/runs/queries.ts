/** Live reads of run records: components re-render when the worker commits. */
import { useLiveQuery } from 'dexie-react-hooks';
import type { RunId, RunNodeRow, RunRow } from '../../core/run/record';
import { listRuns, metricNames, metricSeries, runNodes } from '../../db/runs';
import { db } from '../db';
import { useEditor } from '../store/context';

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

export function useMetricNames(id: RunId | null): string[] | undefined {
  return useLiveQuery(() => (id ? metricNames(db, id) : []), [id]);
}

export function useMetricSeries(id: RunId, name: string) {
  return useLiveQuery(() => metricSeries(db, id, name), [id, name]);
}
