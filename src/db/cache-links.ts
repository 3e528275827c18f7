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
import { parsePortRef } from '../core/flow/document';
import type { RunId, RunNodeRow } from '../core/run/record';
import { live, type Live } from './live';
import { metricNames, metricSeriesLast } from './metrics';
import { eachRunTogether } from './metrics-of-runs';
import { liveRunNodes, runNodes, runNodesOfRuns, runNodesWatched } from './run-nodes';
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

/**
 * Metric series kept for runs that are gone and that nothing links to any
 * more (their last linking run was deleted, or the cache was cleared): found
 * from the metrics' `runId` index alone and deleted. Call inside a
 * transaction over `runs`, `runNodes`, `metrics` and `nodeCache`.
 */
export async function dropUnlinkedSeries(db: FlowbenchDb): Promise<void> {
  const owners = (await db.metrics.orderBy('runId').uniqueKeys()) as RunId[];
  const present = await db.runs.bulkGet(owners);
  const gone = owners.filter((_, i) => present[i] === undefined);
  if (gone.length === 0) return;
  const linked = await linkedRuns(db, gone);
  const unlinked = gone.filter((id) => !linked.has(id));
  if (unlinked.length > 0) await db.metrics.where('runId').anyOf(unlinked).delete();
}

/** A run's series as its charts and comparisons read them. */
export interface SeriesOfRun {
  /** Every metric the run has, its cached nodes' included. */
  readonly names: readonly string[];
  /** The run whose stored points are `name`'s: the source run for a cached node's series. */
  runOf(name: string): RunId;
}

/** `runId`'s series, a cached node's read from the run that computed it (`cachedFrom`). */
export async function seriesOfRun(db: FlowbenchDb, runId: RunId): Promise<SeriesOfRun> {
  const sources = new Map<string, RunId>();
  for (const row of await runNodes(db, runId))
    if (row.status === 'cached' && row.cachedFrom) sources.set(row.node, row.cachedFrom.runId);
  const names = new Set(await metricNames(db, runId));
  for (const source of new Set(sources.values()))
    for (const name of await metricNames(db, source))
      if (sources.get(parsePortRef(name).node) === source) names.add(name);
  return {
    names: [...names].sort(),
    runOf: (name) => sources.get(parsePortRef(name).node) ?? runId,
  };
}

/** A cached node: the run it is in, the node, and the run that computed it. */
export type CachedNode = [run: RunId, node: string, source: RunId];

/** The cached nodes among `rows` (the node rows of some runs), in their order. */
function cachedNodesIn(rowsOfRuns: readonly (readonly RunNodeRow[])[]): CachedNode[] {
  const found: CachedNode[] = [];
  for (const rows of rowsOfRuns)
    for (const row of rows)
      if (row.status === 'cached' && row.cachedFrom)
        found.push([row.runId, row.node, row.cachedFrom.runId]);
  return found;
}

/**
 * Each cached node of runs `ids`. Each run's rows are read as one range of
 * the primary key and filtered here (a filtered read of the `runId` index
 * walked a cursor a row), every run's in one transaction.
 */
export async function cachedNodesOfRuns(
  db: FlowbenchDb,
  ids: readonly RunId[],
): Promise<CachedNode[]> {
  return cachedNodesIn(await runNodesOfRuns(db, [...new Set(ids)]));
}

/**
 * `cachedNodesOfRuns`, live. A lone run, or a run whose node rows some view
 * already watches (the selected run: the canvas, the node timings), is
 * followed through the shared read (`liveRunNodes`), so the charts read no
 * rows of their own for a running run at each batch of its outcomes; the
 * others (the runs picked to compare, mostly finished) are read together, one
 * transaction for all of them, where a read a run took a transaction each.
 */
export function liveCachedNodesOfRuns(db: FlowbenchDb, ids: readonly RunId[]): Live<CachedNode[]> {
  return {
    subscribe(observer) {
      const runs = [...new Set(ids)];
      // A single run is always followed through the shared read, which the views soon open.
      const shared = runs.length === 1 ? runs : runs.filter((id) => runNodesWatched(db, id));
      const together = runs.filter((id) => !shared.includes(id));
      const held = new Map<RunId, readonly RunNodeRow[]>();
      // Told once every run's rows have come, then at each change of any of them.
      const tell = () => {
        if (held.size === runs.length)
          observer.next?.(cachedNodesIn(runs.map((id) => held.get(id)!)));
      };
      const error = (reason: unknown) => observer.error?.(reason);
      tell();
      const watches = shared.map((id) =>
        liveRunNodes(db, id).subscribe({
          next: (rows) => {
            held.set(id, rows);
            tell();
          },
          error,
        }),
      );
      if (together.length > 0)
        watches.push(
          live(() => runNodesOfRuns(db, together)).subscribe({
            next: (rowsOfRuns) => {
              together.forEach((id, i) => held.set(id, rowsOfRuns[i]!));
              tell();
            },
            error,
          }),
        );
      return {
        unsubscribe: () => {
          for (const watch of watches) watch.unsubscribe();
        },
      };
    },
  };
}

/**
 * Each run's final value of each metric that run `namesOf` has (its cached
 * nodes' included; the runs of a sweep share their metrics): the last point
 * of every series where it is finite (a run that ended on NaN has no final
 * value), a cached node's read from the run that computed it. One cursor
 * step per series however long it is.
 */
export async function finalValues(
  db: FlowbenchDb,
  ids: readonly RunId[],
  namesOf: RunId,
): Promise<Map<RunId, Record<string, number>>> {
  const { names } = await seriesOfRun(db, namesOf);
  const sources = new Map<string, RunId>();
  for (const [run, node, source] of await cachedNodesOfRuns(db, ids))
    sources.set(`${run} ${node}`, source);
  const finals = new Map<RunId, Record<string, number>>();
  // Every run's in one transaction: a slice of fifty runs waited for one a series before.
  await eachRunTogether(db, ids, async (id) => {
    const values: Record<string, number> = {};
    for (const name of names) {
      const from = sources.get(`${id} ${parsePortRef(name).node}`) ?? id;
      const last = await metricSeriesLast(db, from, name);
      if (last && Number.isFinite(last.value)) values[name] = last.value;
    }
    finals.set(id, values);
  });
  return finals;
}
