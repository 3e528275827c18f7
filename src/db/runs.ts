/**
 * Queries and writes of run records. The engine writes through these while a
 * run executes; the UI reads through the same functions inside live queries.
 */
import { Dexie } from 'dexie';
import type { RunRecord } from '../core/run/export';
import type { MetricRow, RunId, RunNodeRow, RunRow, RunStatus } from '../core/run/record';
import type { FlowbenchDb } from './schema';

export class RunClaimError extends Error {
  readonly code = 'run-claimed';
  override name = 'RunClaimError';
}

/** Journal a new run as `queued`, before anything executes. */
export async function journalRun(db: FlowbenchDb, run: RunRow): Promise<void> {
  await db.runs.add(run);
}

/**
 * Move a run from `queued` to `running` in one transaction. Whoever moves it
 * owns it: a second engine, tab or retried message gets `RunClaimError`.
 */
export async function claimRun(
  db: FlowbenchDb,
  id: RunId,
  changes: Partial<RunRow>,
): Promise<RunRow> {
  return db.transaction('rw', db.runs, async () => {
    const run = await db.runs.get(id);
    if (!run) throw new RunClaimError(`run ${id} does not exist`);
    if (run.status !== 'queued')
      throw new RunClaimError(`run ${id} is ${run.status}, not queued: another engine owns it`);
    const claimed: RunRow = { ...run, ...changes, status: 'running' };
    await db.runs.put(claimed);
    return claimed;
  });
}

export async function updateRun(
  db: FlowbenchDb,
  id: RunId,
  changes: Partial<RunRow>,
): Promise<void> {
  await db.runs.update(id, changes);
}

export async function putRunNodes(db: FlowbenchDb, rows: readonly RunNodeRow[]): Promise<void> {
  await db.runNodes.bulkPut(rows);
}

export async function putMetrics(db: FlowbenchDb, rows: readonly MetricRow[]): Promise<void> {
  await db.metrics.bulkPut(rows);
}

/** Runs, newest first (ids are time-ordered). */
export function listRuns(db: FlowbenchDb): Promise<RunRow[]> {
  return db.runs.reverse().toArray();
}

export function runNodes(db: FlowbenchDb, runId: RunId): Promise<RunNodeRow[]> {
  return db.runNodes.where('runId').equals(runId).toArray();
}

/**
 * Names of the metrics a run has points for, sorted, found by skipping from
 * one name to the next (one cursor step per name) instead of walking every
 * point's key: a live run writes while this runs, and a long walk would be
 * aborted by each write before it finished.
 */
export async function metricNames(db: FlowbenchDb, runId: RunId): Promise<string[]> {
  const names: string[] = [];
  let from: [RunId, unknown, unknown] = [runId, Dexie.minKey, Dexie.minKey];
  for (;;) {
    const next = await db.metrics
      .where('[runId+name+step]')
      // One `Dexie.maxKey` only: the same array twice in a key is not a valid IndexedDB key.
      .between(from, [runId, Dexie.maxKey], false, true)
      .first();
    if (!next) return names;
    names.push(next.name);
    from = [runId, next.name, Dexie.maxKey];
  }
}

/** One metric series of a run, in step order. */
export function metricSeries(db: FlowbenchDb, runId: RunId, name: string): Promise<MetricRow[]> {
  return db.metrics
    .where('[runId+name+step]')
    .between([runId, name, Dexie.minKey], [runId, name, Dexie.maxKey])
    .toArray();
}

/** Everything recorded of one run, for export. */
export async function readRunRecord(db: FlowbenchDb, id: RunId): Promise<RunRecord | undefined> {
  return db.transaction(
    'r',
    [db.runs, db.runNodes, db.metrics, db.artifacts, db.intervals],
    async () => {
      const run = await db.runs.get(id);
      if (!run) return undefined;
      const [nodes, metrics, artifacts, intervals] = await Promise.all([
        db.runNodes.where('runId').equals(id).toArray(),
        db.metrics.where('runId').equals(id).toArray(),
        db.artifacts.where('runId').equals(id).toArray(),
        db.intervals.where('runId').equals(id).toArray(),
      ]);
      return {
        run,
        nodes,
        metrics,
        artifacts,
        intervals: intervals.map(({ id: _id, ...interval }) => interval),
      };
    },
  );
}

export class RunImportError extends Error {
  readonly code = 'run-exists';
  override name = 'RunImportError';
}

/** Rows written per call while importing, so the page stays responsive. */
const IMPORT_SLICE = 500;

/** Add an imported record whole, or nothing: an id that exists is refused. */
export async function importRunRecord(db: FlowbenchDb, record: RunRecord): Promise<void> {
  await db.transaction(
    'rw',
    [db.runs, db.runNodes, db.metrics, db.artifacts, db.intervals],
    async () => {
      if (await db.runs.get(record.run.id))
        throw new RunImportError(
          `run ${record.run.id} is already in this browser; it was not imported again`,
        );
      await db.runs.add(record.run);
      await db.runNodes.bulkAdd(record.nodes);
      // In slices: one huge bulkAdd holds the main thread for seconds at 100k points.
      for (let i = 0; i < record.metrics.length; i += IMPORT_SLICE)
        await db.metrics.bulkAdd(record.metrics.slice(i, i + IMPORT_SLICE));
      await db.artifacts.bulkAdd(record.artifacts);
      await db.intervals.bulkAdd(record.intervals);
    },
  );
}

/** Runs still marked as active (for the lease sweep on start-up). */
export function activeRuns(db: FlowbenchDb): Promise<RunRow[]> {
  return db.runs
    .where('status')
    .anyOf(['queued', 'running'] satisfies RunStatus[])
    .toArray();
}

/** Cancel a run that has not started: `queued → cancelled` in one transaction. */
export async function cancelQueuedRun(db: FlowbenchDb, id: RunId): Promise<boolean> {
  return db.transaction('rw', db.runs, async () => {
    const run = await db.runs.get(id);
    if (run?.status !== 'queued') return false;
    await db.runs.update(id, {
      status: 'cancelled',
      statusReason: 'Cancelled before it started',
      finishedAt: new Date().toISOString(),
    });
    return true;
  });
}

/** Delete finished runs with everything recorded of them, in one transaction. */
export async function deleteRuns(db: FlowbenchDb, ids: readonly RunId[]): Promise<void> {
  await db.transaction(
    'rw',
    [db.runs, db.runNodes, db.metrics, db.artifacts, db.intervals],
    async () => {
      const runs = await db.runs.bulkGet(ids as RunId[]);
      const active = runs.filter((r) => r?.status === 'queued' || r?.status === 'running');
      if (active.length > 0)
        throw new Error(
          `cancel ${active.map((r) => r!.id).join(', ')} first: a queued or running run cannot be deleted`,
        );
      for (const table of [db.runNodes, db.metrics, db.artifacts, db.intervals])
        await table.where('runId').anyOf(ids).delete();
      await db.runs.bulkDelete(ids as RunId[]);
    },
  );
}
