/**
 * A run's wait intervals (the data engine's `data_wait` …): every read and
 * write of the intervals table. Rows carry an auto-incremented id for the
 * table's sake only; no reader sees it.
 */
import type { IntervalRow, RunId } from '../core/run/record';
import type { FlowbenchDb } from './schema';

/** Record one interval of a run, after those recorded before it. */
export async function addInterval(db: FlowbenchDb, interval: IntervalRow): Promise<void> {
  await db.intervals.add(interval);
}

/** Add a run's intervals in their order (an import, inside its transaction). */
export async function addIntervals(
  db: FlowbenchDb,
  intervals: readonly IntervalRow[],
): Promise<void> {
  await db.intervals.bulkAdd(intervals);
}

/** A run's wait intervals, in the order they were recorded. */
export async function runIntervals(db: FlowbenchDb, runId: RunId): Promise<IntervalRow[]> {
  const rows = await db.intervals.where('runId').equals(runId).toArray();
  return rows.map(({ id: _id, ...interval }) => interval);
}

/** Delete every interval of the runs `ids`. */
export async function deleteIntervalsOfRuns(db: FlowbenchDb, ids: readonly RunId[]): Promise<void> {
  await db.intervals.where('runId').anyOf(ids).delete();
}
