/**
 * Run records: every read and write of the runs table, and the operations on
 * a whole record (read for export, import, delete), which reach the other
 * tables of a record through their own modules inside one transaction. The
 * engine writes through these while a run executes; the UI reads through the
 * same functions inside live reads.
 */
import { Dexie } from 'dexie';
import type { BundleFile } from '../core/run/bundle';
import type { HeldEntries } from '../core/cache';
import type { RunRecord } from '../core/run/export';
import type { FlowId, RunId, RunNodeRow, RunRow, RunStatus } from '../core/run/record';
import { addArtifacts, artifactsOfRun, deleteArtifactsOfRuns } from './artifacts';
import { addIntervals, deleteIntervalsOfRuns, runIntervals } from './intervals';
import { addMetrics, deleteMetricsOfRuns, metricsOfRun } from './metrics';
import { addRunNodes, deleteNodesOfRuns, interruptUnfinishedNodes, runNodes } from './run-nodes';
import { dropUnlinkedSeries, linkedRuns } from './cache-links';
import { live, sharedLivesPerDb, type Live } from './live';
import type { FlowbenchDb } from './schema';
import { entryChanges, type RunEntry } from '../core/run/run-entry';
import {
  deleteRunEntries,
  listRevision,
  patchRunEntry,
  putRunEntries,
  runEntriesSince,
} from './run-list';
import { FlowbenchError } from '../core/errors';

/** The tables that hold one run's record, for a transaction over all of it. */
const RECORD_TABLES = ['runs', 'runNodes', 'metrics', 'artifacts', 'intervals'];
/**
 * Every write of a run row that a list shows also writes its entry in the
 * run list, in the same transaction (`run-list.ts`); a write it does not show
 * (the lease, the fingerprint, a cancel request) leaves the list alone.
 */
const RUN_TABLES = ['runs', 'runList'];

/** Journal a new run as `queued`, before anything executes. */
export async function journalRun(db: FlowbenchDb, run: RunRow): Promise<void> {
  await db.transaction('rw', RUN_TABLES, async () => {
    await db.runs.add(run);
    await putRunEntries(db, [run]);
  });
}

/** Runs written per request batch while journaling a sweep. */
const JOURNAL_SLICE = 100;

/**
 * Journal several new runs (a sweep) as `queued`, in one transaction. The
 * rows go in slices, each awaited: the browser copies a row as it is put, on
 * the calling thread, and a thousand runs put at once held the page in one
 * long task.
 */
export async function journalRuns(db: FlowbenchDb, runs: readonly RunRow[]): Promise<void> {
  await db.transaction('rw', RUN_TABLES, async () => {
    for (let from = 0; from < runs.length; from += JOURNAL_SLICE) {
      const slice = runs.slice(from, from + JOURNAL_SLICE);
      await db.runs.bulkAdd(slice);
      await putRunEntries(db, slice);
    }
  });
}

/**
 * Move a run from `queued` to `running` in one transaction. Whoever moves it
 * owns it: a second engine, tab or retried message gets `run-claimed`.
 */
export async function claimRun(
  db: FlowbenchDb,
  id: RunId,
  changes: Partial<RunRow>,
): Promise<RunRow> {
  return db.transaction('rw', RUN_TABLES, async () => {
    const run = await db.runs.get(id);
    if (!run) throw new FlowbenchError('run-claimed', { runId: id, status: null });
    if (run.status !== 'queued')
      throw new FlowbenchError('run-claimed', { runId: id, status: run.status });
    const claimed: RunRow = { ...run, ...changes, status: 'running' };
    // Together, not one after the other's answer (see `endRun`).
    await Promise.all([
      db.runs.put(claimed),
      patchRunEntry(db, id, { ...changes, status: 'running' }),
    ]);
    return claimed;
  });
}

export async function updateRun(
  db: FlowbenchDb,
  id: RunId,
  changes: Partial<RunRow>,
): Promise<void> {
  if (entryChanges(changes) === null) {
    await db.runs.update(id, changes);
    return;
  }
  await db.transaction('rw', RUN_TABLES, async () => {
    await Promise.all([db.runs.update(id, changes), patchRunEntry(db, id, changes)]);
  });
}

/**
 * Close a run's record: write its ending and mark its nodes still running or
 * queued `interrupted`, in one transaction (the final node outcomes are
 * written just before an ending, and when storage is full they are refused
 * with the rest, so a run must never end with a node left `running` for
 * ever). With `onlyWhileRunning`, nothing is written unless the run is still
 * `running`. `nodes`: node rows written in the same transaction (the driver's
 * last batch). With `nodesFinal`, the caller vouches that every node's final
 * row has landed or is among `nodes` (the engine that drove the run, when all
 * its writes succeeded), and the nodes are not read: a thousand rows read
 * back at the end of every run, to find none to mark. `cached`: the run's
 * node-cache entries the store held back (`takeHeld`), kept in the same
 * transaction and told how it went. Returns whether it wrote.
 */
export async function endRun(
  db: FlowbenchDb,
  id: RunId,
  ending: Partial<RunRow>,
  {
    onlyWhileRunning,
    nodesFinal = false,
    nodes = [],
    cached,
  }: {
    onlyWhileRunning: boolean;
    nodesFinal?: boolean;
    nodes?: readonly RunNodeRow[];
    cached?: HeldEntries | null;
  },
): Promise<boolean> {
  const tables = ['runs', 'runNodes', 'runList', ...(cached ? ['nodeCache'] : [])];
  try {
    const wrote = await db.transaction('rw', tables, async () => {
      // The requests go together, not each after the last one's answer: an answer waits for
      // its thread, and on a busy page five in a row held the run's ending tens of ms.
      const [, current] = await Promise.all([
        cached?.keep(),
        onlyWhileRunning ? db.runs.get(id) : undefined,
      ]);
      if (onlyWhileRunning && current?.status !== 'running') return false;
      await Promise.all([
        db.runs.update(id, ending),
        patchRunEntry(db, id, ending),
        nodes.length > 0 ? db.runNodes.bulkPut(nodes) : undefined,
      ]);
      if (!nodesFinal) {
        const flow = (current ?? (await db.runs.get(id)))?.flowSnapshot;
        await interruptUnfinishedNodes(db, id, flow?.nodes.map((n) => n.id) ?? []);
      }
      return true;
    });
    cached?.settled();
    return wrote;
  } catch (error) {
    cached?.settled(error);
    throw error;
  }
}

/** The run `id`, or `undefined` when it is not stored. */
export function getRun(db: FlowbenchDb, id: RunId): Promise<RunRow | undefined> {
  return db.runs.get(id);
}

const runReadsOf = sharedLivesPerDb((db: FlowbenchDb, id: RunId) => live(() => getRun(db, id)));

/**
 * The run `id`, live, read once for every view that watches it: the selected
 * run's toolbar, detail panel, charts and canvas each watched it with a read
 * of its own, and each read costs the page at every write of any run.
 */
export function liveRun(db: FlowbenchDb, id: RunId): Live<RunRow | undefined> {
  return runReadsOf(db).of(id);
}

/** Runs, newest first (ids are time-ordered). */
export function listRuns(db: FlowbenchDb): Promise<RunRow[]> {
  return db.runs.reverse().toArray();
}

/** Several runs, in the order of `ids`; ids no longer stored are left out. */
export async function runsByIds(db: FlowbenchDb, ids: readonly RunId[]): Promise<RunRow[]> {
  const rows = await db.runs.bulkGet(ids as RunId[]);
  return rows.filter((row): row is RunRow => row !== undefined);
}

/** The runs of a sweep group. */
export function runsOfGroup(db: FlowbenchDb, groupId: string): Promise<RunRow[]> {
  return db.runs.where('groupId').equals(groupId).toArray();
}

/** The newest run of a library flow (ids are time-ordered). */
export function latestRunOfFlow(db: FlowbenchDb, flowId: FlowId): Promise<RunRow | undefined> {
  return db.runs.where('flowId').equals(flowId).last();
}

/** Runs with status `status`. */
export function runsWithStatus(db: FlowbenchDb, status: RunStatus): Promise<RunRow[]> {
  return db.runs.where('status').equals(status).toArray();
}

/** Runs still marked as active (for the lease sweep on start-up). */
export function activeRuns(db: FlowbenchDb): Promise<RunRow[]> {
  return db.runs
    .where('status')
    .anyOf(['queued', 'running'] satisfies RunStatus[])
    .toArray();
}

/**
 * Ask to cancel a run, from any tab, in one transaction: a `queued` run (no
 * engine holds one) ends `cancelled` at once; a `running` run gets its
 * `cancelRequestedAt`, which the engine driving it watches (`renewLease`,
 * and the nudge a tab sends with the request). Anything else
 * has ended already and is left alone.
 */
export async function requestCancel(
  db: FlowbenchDb,
  id: RunId,
  at: Date,
): Promise<'cancelled' | 'requested' | 'ended'> {
  return db.transaction('rw', RUN_TABLES, async () => {
    const run = await db.runs.get(id);
    if (run?.status === 'queued') {
      const cancelled: Partial<RunRow> = {
        status: 'cancelled',
        statusReason: 'Cancelled before it started',
        finishedAt: at.toISOString(),
      };
      await db.runs.update(id, cancelled);
      await patchRunEntry(db, id, cancelled);
      return 'cancelled';
    }
    if (run?.status !== 'running') return 'ended';
    if (run.cancelRequestedAt === null)
      await db.runs.update(id, { cancelRequestedAt: at.toISOString() });
    return 'requested';
  });
}

/** What an engine learns when it renews a run's lease. */
export interface LeaseRenewal {
  /** The run is still `running` (false: it ended, or another tab marked it abandoned). */
  running: boolean;
  /** Someone asked to cancel it (`requestCancel`). */
  cancelRequested: boolean;
}

/**
 * Extend a running run's lease to `until` and read back whether someone
 * asked to cancel it, in one transaction. A run no longer `running` is not
 * touched.
 */
export async function renewLease(db: FlowbenchDb, id: RunId, until: number): Promise<LeaseRenewal> {
  return db.transaction('rw', db.runs, async () => {
    const run = await db.runs.get(id);
    if (run?.status !== 'running') return { running: false, cancelRequested: false };
    await db.runs.update(id, { leaseUntil: until });
    return { running: true, cancelRequested: run.cancelRequestedAt !== null };
  });
}

/** Whether someone asked to cancel the running run `id`. */
export async function cancelRequested(db: FlowbenchDb, id: RunId): Promise<boolean> {
  const run = await db.runs.get(id);
  return run?.status === 'running' && run.cancelRequestedAt !== null;
}

/**
 * The queue: queued runs' list entries, oldest first (by creation time, then
 * by id, ids being time-ordered), on the list's `[status+createdAt]` index.
 * Entries, not rows: an engine reads the queue at every claim, and a run row
 * holds its whole flow. In order on an index, so taking the oldest run reads
 * that run's entry and not the rest of the queue.
 */
function queue(db: FlowbenchDb) {
  return db.runList
    .where('[status+createdAt]')
    .between(['queued', Dexie.minKey], ['queued', Dexie.maxKey], true, true);
}

/** Queued runs, oldest first. */
export function queuedRuns(db: FlowbenchDb): Promise<QueuedRun[]> {
  return queue(db).toArray();
}

/** Whether any run is queued (one index step). */
export async function anyRunQueued(db: FlowbenchDb): Promise<boolean> {
  return (await queue(db).limit(1).primaryKeys()).length > 0;
}

/** A queued run as an engine reads the queue. */
export type QueuedRun = Pick<RunEntry, 'id' | 'createdAt' | 'statusReason' | 'requires'>;

/** How an engine reads the queue: why it cannot serve a run, or null when it can. */
export type QueueReader = (run: QueuedRun) => string | null;

/** Entries read at a time while walking the queue for a run to take. */
const QUEUE_PAGE = 32;

/**
 * Take the oldest queued run this engine can serve, in one transaction (a
 * compare-and-swap, like `claimRun`: of engines taking at once, each gets a
 * different run or none). On the way, each older run it cannot serve gets
 * the reason `cannotServe` gives as its status reason, so the person sees
 * why it waits. The queue is read a page at a time and the walk stops at the
 * run taken. Resolves with the claimed run and whether other runs are still
 * queued (read on the way: none when it was the only one), or undefined.
 */
export async function claimNextRun(
  db: FlowbenchDb,
  cannotServe: QueueReader,
  /** The changes the claim writes, or what makes them from the run taken. */
  claim: Partial<RunRow> | ((run: RunRow) => Partial<RunRow>),
): Promise<{ run: RunRow; othersQueued: boolean } | undefined> {
  return db.transaction('rw', RUN_TABLES, async () => {
    // A reason written on the way leaves the entry where it was in the index; the claim
    // moves one out of it, and the walk ends there.
    for (let offset = 0; ; offset += QUEUE_PAGE) {
      const page = await queue(db).offset(offset).limit(QUEUE_PAGE).toArray();
      for (const queued of page) {
        const reason = cannotServe(queued);
        if (reason !== null) {
          await sayWhy(db, queued, reason);
          continue;
        }
        // The one row read whole: the run claimed.
        const run = await db.runs.get(queued.id);
        if (run?.status !== 'queued') continue;
        const changes = typeof claim === 'function' ? claim(run) : claim;
        const claimed: RunRow = { ...run, ...changes, status: 'running' };
        await db.runs.put(claimed);
        await patchRunEntry(db, run.id, { ...changes, status: 'running' });
        return { run: claimed, othersQueued: offset > 0 || page.length > 1 };
      }
      if (page.length < QUEUE_PAGE) return undefined;
    }
  });
}

/**
 * Give each queued run this engine cannot serve the reason `cannotServe`
 * says, among the entries changed since list revision `since` (all queued
 * runs when `since` is negative), in one transaction. Resolves with the
 * list's revision after it, the `since` of the next call: an engine that
 * keeps it reads only what changed between two looks at the queue, not the
 * queue.
 */
export async function sayWhyRunsWait(
  db: FlowbenchDb,
  cannotServe: QueueReader,
  since: number,
): Promise<number> {
  // Read first, in a read-only transaction: an engine looks after every run it ends, and in a
  // sweep it can serve every run, so there is nothing to write nearly every time.
  const { changed, rev } = await db.transaction('r', RUN_TABLES, async () => ({
    changed: since < 0 ? await queue(db).toArray() : await runEntriesSince(db, since),
    rev: await listRevision(db),
  }));
  const untold = changed.filter((entry) => {
    if (entry.status !== 'queued') return false;
    const reason = cannotServe(entry);
    return reason !== null && reason !== entry.statusReason;
  });
  if (untold.length === 0) return rev;
  return db.transaction('rw', RUN_TABLES, async () => {
    // Read again: each may have been claimed or told since.
    for (const entry of await db.runList.bulkGet(untold.map((e) => e.id))) {
      if (entry?.status !== 'queued') continue;
      const reason = cannotServe(entry);
      if (reason !== null) await sayWhy(db, entry, reason);
    }
    return listRevision(db);
  });
}

async function sayWhy(db: FlowbenchDb, queued: QueuedRun, reason: string): Promise<void> {
  if (queued.statusReason === reason) return;
  await db.runs.update(queued.id, { statusReason: reason });
  await patchRunEntry(db, queued.id, { statusReason: reason });
}

/** Everything recorded of one run, for export. */
export async function readRunRecord(db: FlowbenchDb, id: RunId): Promise<RunRecord | undefined> {
  return db.transaction('r', RECORD_TABLES, async () => {
    const run = await db.runs.get(id);
    if (!run) return undefined;
    const [nodes, metrics, artifacts, intervals] = await Promise.all([
      runNodes(db, id),
      metricsOfRun(db, id),
      artifactsOfRun(db, id),
      runIntervals(db, id),
    ]);
    return { run, nodes, metrics, artifacts, intervals };
  });
}

/**
 * Add an imported record whole, or nothing: an id that exists is refused.
 * `files` (a bundle's: the files its flow names) are stored in the same
 * transaction, so a refused run leaves none of them behind.
 */
export async function importRunRecord(
  db: FlowbenchDb,
  record: RunRecord,
  files: readonly BundleFile[] = [],
): Promise<void> {
  const [added] = await importRunRecords(db, [record], files);
  if (!added) throw new FlowbenchError('run-exists', { runId: record.run.id });
}

/**
 * Add imported records in one transaction (a folder of exported runs: one
 * write, and one change for the live queries, instead of one per file). Each
 * record is added whole; one whose id exists, or repeats an earlier one's in
 * `records`, is left out. Resolves with whether each was added. Anything else
 * that fails (the quota) writes none of them.
 */
export async function importRunRecords(
  db: FlowbenchDb,
  records: readonly RunRecord[],
  files: readonly BundleFile[] = [],
): Promise<boolean[]> {
  return db.transaction('rw', [...RECORD_TABLES, 'runList', 'files'], async () => {
    const stored = await db.runs.bulkGet(records.map((record) => record.run.id));
    const ids = new Set<RunId>();
    const added = records.map(({ run }, i) => {
      if (stored[i] || ids.has(run.id)) return false;
      ids.add(run.id);
      return true;
    });
    const fresh = records.filter((_, i) => added[i]);
    if (fresh.length === 0) return added;
    const addedAt = new Date().toISOString();
    await db.files.bulkPut(
      files.map(({ digest, name, mediaType, bytes }) => ({
        digest,
        name,
        mediaType,
        bytes,
        size: bytes.byteLength,
        addedAt,
      })),
    );
    const runs = fresh.map((record) => record.run);
    await db.runs.bulkAdd(runs);
    await putRunEntries(db, runs);
    await addRunNodes(
      db,
      fresh.flatMap((record) => record.nodes),
    );
    // A deleted run's series may have stayed for a cached node linking to them
    // (cache-links.ts): the run coming back brings its own, which replace them.
    await deleteMetricsOfRuns(
      db,
      runs.map((run) => run.id),
    );
    // As chunks of 2,048 points: 100,000 points are some fifty rows.
    await addMetrics(
      db,
      fresh.flatMap((record) => record.metrics),
    );
    await addArtifacts(
      db,
      fresh.flatMap((record) => record.artifacts),
    );
    await addIntervals(
      db,
      fresh.flatMap((record) => record.intervals),
    );
    return added;
  });
}

/** Delete finished runs with everything recorded of them, in one transaction. */
export async function deleteRuns(db: FlowbenchDb, ids: readonly RunId[]): Promise<void> {
  await db.transaction('rw', [...RECORD_TABLES, 'runList', 'settings', 'nodeCache'], async () => {
    const runs = await db.runs.bulkGet(ids as RunId[]);
    const active = runs.filter((r) => r?.status === 'queued' || r?.status === 'running');
    if (active.length > 0)
      throw new Error(
        `cancel ${active.map((r) => r!.id).join(', ')} first: a queued or running run cannot be deleted`,
      );
    // Series a cached node shows (in the cache, or in another run) stay while linked to.
    const linked = await linkedRuns(db, ids);
    await deleteNodesOfRuns(db, ids);
    await deleteMetricsOfRuns(
      db,
      ids.filter((id) => !linked.has(id)),
    );
    await deleteArtifactsOfRuns(db, ids);
    await deleteIntervalsOfRuns(db, ids);
    await db.runs.bulkDelete(ids as RunId[]);
    await deleteRunEntries(db, ids);
    // Series kept earlier for a link that this delete removed go now.
    await dropUnlinkedSeries(db);
  });
}
