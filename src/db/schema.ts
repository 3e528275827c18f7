/**
 * The IndexedDB schema (Dexie), shared by the UI and the engine worker.
 *
 * Each version stays forever: Dexie upgrades a profile step by step from
 * whatever version it has, so a person's runs survive every release. The
 * stores each version adds or re-indexes are listed below; the rows each
 * version rewrites come from the record migrations (`core/records`), whose
 * `db` names the version that applies them, so the same functions also
 * migrate imported files. Add a version; never edit an old one.
 */
import { Dexie, type EntityTable, type Table, type Transaction } from 'dexie';
import { storedRecords, type StoredRecords } from '../core/records';
import type { FileRow } from '../core/records/file';
import type { FlowRow } from '../core/records/flow';
import type { IntervalRecord } from '../core/records/interval';
import type { PoolBookingRow } from '../core/records/pool-booking';
import { runEntryOf, type RunEntry } from '../core/run/run-entry';
import { latestDbVersion } from '../core/records/migration';
import type { SettingRow } from '../core/records/setting';
import type { MetricChunkRow } from '../core/records/metric';
import type { NodeCacheRow } from '../core/records/node-cache';
import type { ArtifactRow, RunId, RunNodeRow, RunRow } from '../core/run/record';
import { upgradeFor, upgradesAt } from './upgrade';

export type { FileRow, FlowRow, IntervalRecord, PoolBookingRow, SettingRow };

/** The stores each database version adds or changes, in Dexie's syntax. */
const storeChanges: Readonly<Record<number, Readonly<Record<string, string | null>>>> = {
  1: {
    flows: 'id, name, updatedAt',
    runs: 'id, flowId, status, groupId, createdAt',
    runNodes: '[runId+node], runId',
    metrics: '[runId+name+step], runId',
    artifacts: '[runId+name], runId',
    intervals: '++id, runId',
    settings: 'key',
  },
  // Files picked for file params (imported models), kept by digest.
  2: { files: 'digest' },
  // 3: no store changes; run rows gain their provenance fields (run record v2).
  // 4: no store changes; run rows gain `cancelRequestedAt` (run record v3).
  // Bytes of the device pools' budget each engine (tab) holds, so every tab books one budget.
  5: { poolBookings: 'id, backend, engine' },
  // The run list: each run's small entry, read by the lists of runs instead of whole run rows.
  6: { runList: 'id, rev, groupId' },
  // 7: no store changes; `metrics` rows become chunks of a series, same key (metric record v2).
  // The node-output cache: an entry per cache key; `[usedAt+size]` lets eviction and the
  // cache's size be read from the index alone, never loading an entry's bytes.
  8: { nodeCache: 'key, runId, [usedAt+size]' },
  // The queue in order (oldest queued run first), so an engine taking a run reads only what it takes.
  9: { runList: 'id, rev, groupId, [status+createdAt]' },
};

/**
 * Tables a version fills from the others when a database first opens at it,
 * after its record migrations (a new table derived from rows already stored).
 */
const derivedAt: Readonly<Record<number, (tx: Transaction) => Promise<void>>> = {
  6: async (tx) => {
    const runs = (await tx.table('runs').toArray()) as RunRow[];
    await tx.table('runList').bulkPut(runs.map((run, i) => runEntryOf(run, i + 1)));
  },
  // Entries written before they kept `requires` take it from their run, so the queue reads no run row.
  9: async (tx) => {
    const lacking = (await tx
      .table('runList')
      .filter((entry: Partial<RunEntry>) => entry.requires === undefined)
      .toArray()) as Omit<RunEntry, 'requires'>[];
    if (lacking.length === 0) return;
    const runs = (await tx.table('runs').bulkGet(lacking.map((entry) => entry.id))) as (
      RunRow | undefined
    )[];
    await tx
      .table('runList')
      .bulkPut(lacking.map((entry, i) => ({ ...entry, requires: [...(runs[i]?.requires ?? [])] })));
  },
};

/** The database's current version: the newest that changes a store or migrates a record. */
export function dbVersion(records: StoredRecords = storedRecords): number {
  return Math.max(
    ...Object.keys(storeChanges).map(Number),
    latestDbVersion(Object.values(records)),
  );
}

export class FlowbenchDb extends Dexie {
  flows!: EntityTable<FlowRow, 'id'>;
  runs!: EntityTable<RunRow, 'id'>;
  runNodes!: Table<RunNodeRow, [RunId, string]>;
  /** Chunks of metric series, keyed by their first step (see `metrics.ts`). */
  metrics!: Table<MetricChunkRow, [RunId, string, number]>;
  artifacts!: Table<ArtifactRow, [RunId, string]>;
  intervals!: EntityTable<IntervalRecord, 'id'>;
  settings!: EntityTable<SettingRow, 'key'>;
  files!: EntityTable<FileRow, 'digest'>;
  poolBookings!: EntityTable<PoolBookingRow, 'id'>;
  runList!: EntityTable<RunEntry, 'id'>;
  nodeCache!: EntityTable<NodeCacheRow, 'key'>;

  /** `records`: the record list whose migrations upgrade old rows (a test may pass one with more). */
  constructor(name = 'flowbench', records: StoredRecords = storedRecords) {
    super(name);
    for (let version = 1; version <= dbVersion(records); version++) {
      const changes = storeChanges[version];
      const upgrades = upgradesAt(records, version);
      const derive = derivedAt[version];
      if (!changes && upgrades.length === 0) continue;
      const declared = this.version(version).stores(changes ?? {});
      const migrate = upgrades.length > 0 ? upgradeFor(records, version) : null;
      if (migrate || derive)
        declared.upgrade(async (tx) => {
          await migrate?.(tx);
          await derive?.(tx);
        });
    }
  }
}
