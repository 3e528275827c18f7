/**
 * What links to a run's series besides the run itself: a node-output cache
 * entry the run computed (a later hit shows the run's series for the node),
 * and the run nodes of other runs that took their outputs from it
 * (`cachedFrom`). Deleting a run keeps its metric series while anything
 * links to them, so a cached node's charts never go blank.
 *
 * Trade-off: the run nodes are scanned (they have no index on `cachedFrom`),
 * once per delete however many runs it deletes; a delete is rare and a
 * person waits for it anyway.
 */
import type { RunId } from '../core/run/record';
import type { FlowbenchDb } from './schema';

/** The runs among `ids` whose series something outside `ids` still links to. */
export async function linkedRuns(db: FlowbenchDb, ids: readonly RunId[]): Promise<Set<RunId>> {
  const deleting = new Set<RunId>(ids);
  const linked = new Set<RunId>();
  if (deleting.size === 0) return linked;
  await db.nodeCache
    .where('runId')
    .anyOf([...deleting])
    .eachKey((runId) => linked.add(runId as RunId));
  await db.runNodes
    .filter((row) => row.cachedFrom !== undefined && !deleting.has(row.runId))
    .each((row) => {
      if (deleting.has(row.cachedFrom!.runId)) linked.add(row.cachedFrom!.runId);
    });
  return linked;
}
