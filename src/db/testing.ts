/**
 * Test support for code that stores through this layer: counting what is
 * stored, and storage that refuses writes the way a browser does when the
 * origin's quota is full. Tests outside the db layer use these instead of
 * reaching into tables or Dexie themselves.
 *
 * Refused writes are injected as a Dexie middleware, under the queries, so
 * the code under test runs its real queries and transactions and meets the
 * refusal where IndexedDB would raise it.
 */
import { Dexie, type DBCore, type DBCoreMutateRequest, type DBCoreTable } from 'dexie';
import { afterEach } from 'vitest';
import { describeIssues } from '../core/flow/issues';
import { parseFlow } from '../core/flow/validate';
import type { MetricRow, RunId, RunRow } from '../core/run/record';
import spirals from '../examples/spirals-mlp.flow.json';
import { countMetricPoints } from './metrics';
import { FlowbenchDb } from './schema';

/**
 * Databases for the tests of one file: `freshDb()` opens a new one per call,
 * `reopen(db)` a second connection to the same one (another tab); every one
 * is deleted after each test, so no test sees another's rows.
 */
export function testDatabases(label: string): {
  freshDb: () => FlowbenchDb;
  reopen: (db: FlowbenchDb) => FlowbenchDb;
} {
  const opened: FlowbenchDb[] = [];
  afterEach(async () => {
    for (const db of opened.splice(0)) await db.delete();
  });
  const open = (name: string) => {
    const db = new FlowbenchDb(name);
    opened.push(db);
    return db;
  };
  return {
    freshDb: () => open(`flowbench-test-${label}-${crypto.randomUUID()}`),
    reopen: (db) => open(db.name),
  };
}

const parsedSpirals = parseFlow(spirals);
if (!parsedSpirals.ok) throw new Error(describeIssues(parsedSpirals.issues));
/** The spirals example flow, parsed: what the runs of these tests ran. */
export const spiralsFlow = parsedSpirals.flow;

/** Points `from` … `to - 1` of series `name` of run `runId`: value step / 10, ts the step. */
export const metricPoints = (runId: string, name: string, from: number, to: number): MetricRow[] =>
  Array.from({ length: to - from }, (_, i) => ({
    runId: runId as RunId,
    name,
    step: from + i,
    value: (from + i) / 10,
    ts: from + i,
  }));

/** A queued run of the spirals flow, started from the UI, with `overrides`. */
export function testRunRow(id: string, overrides: Partial<RunRow> = {}): RunRow {
  return {
    id: id as RunId,
    flowId: null,
    flow: spiralsFlow.name,
    flowVersion: 1,
    flowSnapshot: spiralsFlow,
    params: { lr: 0.1 },
    seed: 0,
    paramsDigest: '0'.repeat(64),
    groupId: null,
    cause: 'ui',
    backendChoice: 'auto',
    status: 'queued',
    statusReason: '',
    createdAt: '2024-11-29T16:53:20.000Z',
    startedAt: null,
    finishedAt: null,
    durationMs: null,
    engine: null,
    result: {},
    leaseUntil: null,
    cancelRequestedAt: null,
    requires: [],
    rerunOf: null,
    ...overrides,
  };
}

/** Rows stored per table; for `metrics`, points (a series is stored as chunks of points). */
export type StoredCounts = Record<
  'flows' | 'runs' | 'runNodes' | 'metrics' | 'artifacts' | 'intervals' | 'settings' | 'files',
  number
>;

/** How many rows each table holds now (points, for `metrics`). */
export async function storedCounts(db: FlowbenchDb): Promise<StoredCounts> {
  const [flows, runs, runNodes, metrics, artifacts, intervals, settings, files] = await Promise.all(
    [
      db.flows.count(),
      db.runs.count(),
      db.runNodes.count(),
      countMetricPoints(db),
      db.artifacts.count(),
      db.intervals.count(),
      db.settings.count(),
      db.files.count(),
    ],
  );
  return { flows, runs, runNodes, metrics, artifacts, intervals, settings, files };
}

/** One write a query asks storage for, as `refuseWrites` shows it. */
export interface StorageWrite {
  /** The table written. */
  readonly table: string;
  /** The rows written whole (an add or a put); none for an update or a delete. */
  readonly rows: readonly unknown[];
  /** The fields an update sets, when it is one. */
  readonly changes?: Readonly<Record<string, unknown>>;
}

/** The browser's refusal of a write for lack of quota. */
export function quotaExceeded(): DOMException {
  return new DOMException('The quota has been exceeded.', 'QuotaExceededError');
}

/**
 * What Dexie rejects with when the browser aborts a transaction at commit
 * (`inner`: the browser's reason, e.g. `quotaExceeded()`).
 */
export function transactionAborted(message: string, inner: Error): Error {
  return new Dexie.AbortError(message, inner);
}

/**
 * Refuse each write `refuse` picks with `error()` (the quota refusal by
 * default), inside its transaction, as IndexedDB would. Call it before the
 * database is first used: Dexie builds its middleware when it opens.
 */
export function refuseWrites(
  db: FlowbenchDb,
  refuse: (write: StorageWrite) => boolean,
  error: () => Error = quotaExceeded,
): void {
  if (db.isOpen()) throw new Error('refuseWrites: the database is open already');
  const refusing = (table: DBCoreTable): DBCoreTable => ({
    ...table,
    mutate: (request) =>
      refuse(storageWrite(table.name, request)) ? Promise.reject(error()) : table.mutate(request),
  });
  db.use({
    stack: 'dbcore',
    name: 'refuse-writes',
    // Above Dexie's own middleware: the writes as the queries asked for them.
    level: 100,
    create: (down: DBCore): DBCore => ({ ...down, table: (name) => refusing(down.table(name)) }),
  });
}

function storageWrite(table: string, request: DBCoreMutateRequest): StorageWrite {
  if (request.type === 'put' && request.changeSpec)
    return { table, rows: [], changes: request.changeSpec };
  if (request.type === 'add' || request.type === 'put') return { table, rows: request.values };
  return { table, rows: [] };
}

/** A transaction a database ran, as `transactionsOf` records it. */
export interface TransactionSeen {
  readonly mode: 'readonly' | 'readwrite';
  /** The stores it spans, sorted. */
  readonly stores: readonly string[];
}

/**
 * Each transaction `db` runs from now on, in order. Call it before the
 * database is first used, as `refuseWrites`.
 */
export function transactionsOf(db: FlowbenchDb): TransactionSeen[] {
  if (db.isOpen()) throw new Error('transactionsOf: the database is open already');
  const seen: TransactionSeen[] = [];
  db.use({
    stack: 'dbcore',
    name: 'transactions-seen',
    create: (down: DBCore): DBCore => ({
      ...down,
      transaction: (stores, mode, options) => {
        seen.push({ mode, stores: [...stores].sort() });
        return down.transaction(stores, mode, options);
      },
    }),
  });
  return seen;
}

/** The stores of each read-write transaction among `seen`. */
export const writesAmong = (seen: readonly TransactionSeen[]): (readonly string[])[] =>
  seen.filter((t) => t.mode === 'readwrite').map((t) => t.stores);
