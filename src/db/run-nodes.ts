/** The outcome of each node of a run: every read and write of the run nodes table. */
import { Dexie } from 'dexie';
import { unstartedNodeRow, type RunId, type RunNodeRow } from '../core/run/record';
import { live, sharedLivesPerDb, type Live } from './live';
import type { FlowbenchDb } from './schema';

/** Write node outcomes; a node's earlier row is replaced. */
export async function putRunNodes(db: FlowbenchDb, rows: readonly RunNodeRow[]): Promise<void> {
  await db.runNodes.bulkPut(rows);
}

/** Add a run's node rows (an import, inside its transaction). */
export async function addRunNodes(db: FlowbenchDb, rows: readonly RunNodeRow[]): Promise<void> {
  await db.runNodes.bulkAdd(rows);
}

/**
 * The node rows of a run, by node id. Read as a range of the primary key, not
 * on the `runId` index: a live read of an index's rows watches each row's key
 * one by one, and a run of a thousand nodes is read again at every batch.
 */
export function runNodes(db: FlowbenchDb, runId: RunId): Promise<RunNodeRow[]> {
  return db.runNodes
    .where('[runId+node]')
    .between([runId, Dexie.minKey], [runId, Dexie.maxKey], true, true)
    .toArray();
}

/** {@link runNodes} of each run, in the order of `runIds`, all in one transaction. */
export function runNodesOfRuns(db: FlowbenchDb, runIds: readonly RunId[]): Promise<RunNodeRow[][]> {
  if (runIds.length === 0) return Promise.resolve([]);
  return db.transaction('r', db.runNodes, () => Promise.all(runIds.map((id) => runNodes(db, id))));
}

const nodeReadsOf = sharedLivesPerDb((db: FlowbenchDb, runId: RunId) =>
  live(() => runNodes(db, runId)),
);

/**
 * A run's node rows, live, read once for every view that watches them (the
 * canvas, the node timings and the timeline all do, for the selected run).
 */
export function liveRunNodes(db: FlowbenchDb, runId: RunId): Live<RunNodeRow[]> {
  return nodeReadsOf(db).of(runId);
}

/** Whether some view watches run `runId`'s node rows now (its {@link liveRunNodes} is open). */
export function runNodesWatched(db: FlowbenchDb, runId: RunId): boolean {
  return nodeReadsOf(db).watched(runId);
}

/**
 * Mark a run's nodes still `running` or `queued` as `interrupted`, and give
 * each of its flow's `nodes` with no row yet an `interrupted` one: the run
 * ended under them (stopped by a storage failure, or its engine died), and a
 * node's row is written only once it has an outcome or has waited or run a
 * while (the engine's node-outcomes.ts).
 */
export async function interruptUnfinishedNodes(
  db: FlowbenchDb,
  runId: RunId,
  nodes: readonly string[],
): Promise<void> {
  // The run's rows as one key range, filtered here: a filtered walk of the `runId` index took a
  // cursor step a row, a round trip each, at the end of every run however it ended.
  const stored = await runNodes(db, runId);
  const have = new Set(stored.map((n) => n.node));
  const rows: RunNodeRow[] = [
    ...stored
      .filter((n) => n.status === 'running' || n.status === 'queued')
      .map((n) => ({ ...n, status: 'interrupted' as const })),
    ...nodes
      .filter((node) => !have.has(node))
      .map((node) => unstartedNodeRow(runId, node, 'interrupted')),
  ];
  if (rows.length > 0) await db.runNodes.bulkPut(rows);
}

/** Delete every node row of the runs `ids`. */
export async function deleteNodesOfRuns(db: FlowbenchDb, ids: readonly RunId[]): Promise<void> {
  await db.runNodes.where('runId').anyOf(ids).delete();
}
