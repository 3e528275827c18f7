/** The outcome of each node of a run: every read and write of the run nodes table. */
import type { RunId, RunNodeRow } from '../core/run/record';
import type { FlowbenchDb } from './schema';

/** Write node outcomes; a node's earlier row is replaced. */
export async function putRunNodes(db: FlowbenchDb, rows: readonly RunNodeRow[]): Promise<void> {
  await db.runNodes.bulkPut(rows);
}

/** Add a run's node rows (an import, inside its transaction). */
export async function addRunNodes(db: FlowbenchDb, rows: readonly RunNodeRow[]): Promise<void> {
  await db.runNodes.bulkAdd(rows);
}

/** The node rows of a run, by node id. */
export function runNodes(db: FlowbenchDb, runId: RunId): Promise<RunNodeRow[]> {
  return db.runNodes.where('runId').equals(runId).toArray();
}

/**
 * Mark a run's nodes still `running` or `queued` as `interrupted`: the run
 * ended under them (stopped by a storage failure, or its engine died).
 */
export async function interruptUnfinishedNodes(db: FlowbenchDb, runId: RunId): Promise<void> {
  await db.runNodes
    .where('runId')
    .equals(runId)
    .filter((n) => n.status === 'running' || n.status === 'queued')
    .modify({ status: 'interrupted' });
}

/** Delete every node row of the runs `ids`. */
export async function deleteNodesOfRuns(db: FlowbenchDb, ids: readonly RunId[]): Promise<void> {
  await db.runNodes.where('runId').anyOf(ids).delete();
}
