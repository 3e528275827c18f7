/**
 * The node-output cache's store: every read and write of `nodeCache`. Core
 * decides what to cache and checks what comes back (`src/core/cache`); this
 * keeps the entries, shared by every tab, under a size budget.
 *
 * Idea: eviction is least recently used, and it reads only the
 * `[usedAt+size]` index (a key cursor), never an entry's bytes, so keeping
 * the budget costs a walk of small keys however big the entries are. A write
 * of a key already stored is a no-op inside one transaction, so two tabs
 * computing the same node at once store it once. Reads and writes asked while
 * a transaction runs are batched into the next, so a run of many nodes pays a
 * few transactions. Trade-off: a read marks the entry used with a write of
 * its row (in the next batch of writes), which costs a little on every hit.
 *
 * A run hands its entries over without waiting for them to be kept (see
 * `core/engine/run-cache.ts`), so the store reads back an entry it was given
 * until it is kept. It holds a run's entries `HOLD_MS` from the first: a run
 * that ends sooner keeps them in the transaction that ends it (`takeHeld`,
 * `endRun`), so a sweep of quick runs writes each run's entries with its
 * ending instead of in transactions of their own; the rest go together
 * when the hold is over, and so do more than `WRITE_BATCH` of them at the
 * ending, after it. It writes at most `WRITE_BATCH` entries a transaction:
 * the browser's storage runs transactions in the order they came, and a
 * thousand entries in one held a run's own last writes behind them for
 * 400 ms and more.
 */
import type { CacheEntry, NodeCacheStore } from '../core/cache';
import type { NodeCacheRow } from '../core/records/node-cache';
import { Dexie } from 'dexie';
import { dropUnlinkedSeries } from './cache-links';
import type { Live } from './live';
import type { FlowbenchDb } from './schema';

/** What the cache holds: entries and their bytes. */
export interface CacheStats {
  entries: number;
  bytes: number;
}

export interface NodeCacheOptions {
  /** The most bytes the cache may hold; older entries are evicted past it. */
  budgetBytes: () => Promise<number> | number;
  /** Epoch ms; injected so eviction order can be tested without a clock. */
  now?: () => number;
  /** How long a run's entries are held for its ending to keep (`takeHeld`); default `HOLD_MS`. */
  holdMs?: number;
}

/**
 * How long a run's entries wait, from its first, to be kept with the
 * run's ending: a run that ends sooner writes them in its ending's
 * transaction, not in transactions of their own.
 */
export const HOLD_MS = 100;

/**
 * How long entries kept apart from a run's ending wait after it: the page
 * reads and draws the ending meanwhile. A thousand entries written beside
 * that, on 2 cores, put the `ok` in the runs table 70 ms later and the page's
 * longest task at 58–59 ms against 50–53 (1,000-node runs, medians of five).
 */
export const AFTER_ENDING_MS = 300;

/** The share of the browser's storage quota the cache may take by default. */
export const CACHE_QUOTA_SHARE = 0.25;

/** How long a store keeps the budget it asked for, and its reading of what the cache holds. */
const BUDGET_KEPT_MS = 10_000;

/** The budget where the browser does not say its quota. */
export const FALLBACK_CACHE_BYTES = 256 * 1024 * 1024;

/** The default budget: a share of the origin's storage quota, asked each time (it changes). */
export async function quotaShareBudget(share = CACHE_QUOTA_SHARE): Promise<number> {
  const storage = typeof navigator === 'undefined' ? undefined : navigator.storage;
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- absent outside a secure context
  const estimate = await storage?.estimate?.().catch(() => undefined);
  return estimate?.quota ? Math.floor(estimate.quota * share) : FALLBACK_CACHE_BYTES;
}

/** The most changes one transaction of writes holds. */
export const WRITE_BATCH = 100;

/** What a batch of writes does: store an entry, or mark one used (by a read). */
type CacheChange = { readonly store: CacheEntry } | { readonly used: string };

/** An entry held back, and its writer's promise. */
interface HeldEntry {
  readonly entry: CacheEntry;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/** The store core's executor asks, over this database. */
export function nodeCacheStore(db: FlowbenchDb, options: NodeCacheOptions): NodeCacheStore {
  const now = options.now ?? Date.now;
  // A run of a thousand nodes stores a thousand entries: asking the browser's estimate and
  // reading the whole index to evict, at every one, made each store cost more than the last.
  // The budget is asked again after BUDGET_KEPT_MS; the index is read to evict only when what
  // this store has written since its last reading may pass the budget (or that reading is old:
  // other tabs write too).
  let budget: { bytes: number; at: number } | null = null;
  let kept: { bytes: number; at: number } | null = null;
  const budgetBytes = async () => {
    if (budget === null || now() - budget.at > BUDGET_KEPT_MS)
      budget = { bytes: await options.budgetBytes(), at: now() };
    return budget.bytes;
  };
  // Entries given to `write` and not kept yet, by key: a read finds them here.
  const given = new Map<string, CacheEntry>();
  // A thousand ready nodes look up a thousand keys at once: one transaction each waited in
  // line behind the others (a few ms apiece in a browser). Reads (and writes) asked while one
  // transaction runs go together in the next, so a run pays a few transactions, not one a node.
  // A read only reads (readonly transactions do not wait for one another); the entries it found
  // are marked used with the next batch of writes.
  const read = batched(async (keys: string[]) => {
    const rows = await db.transaction('r', db.nodeCache, () => db.nodeCache.bulkGet(keys));
    return rows.map((row) => {
      if (!row) return undefined;
      void change({ used: row.key }).catch(() => undefined); // a use not marked costs nothing now
      return entryOf(row);
    });
  });
  /** `entries` as rows to add, made at `at`: one a key, none bigger than the budget (it would evict everything and still not fit). */
  const rowsOf = (entries: readonly CacheEntry[], bytes: number, at: number) => {
    const fresh = new Map<string, NodeCacheRow>();
    for (const entry of entries) {
      const size = sizeOf(entry);
      if (size <= bytes && !fresh.has(entry.key))
        fresh.set(entry.key, { ...rowOf(entry), size, createdAt: at, usedAt: at });
    }
    return [...fresh.values()];
  };
  /** Adds `rows` and keeps the budget; inside a transaction over `nodeCache`. */
  const keep = async (rows: readonly NodeCacheRow[], bytes: number, at: number) => {
    if (rows.length === 0) return;
    const size = await addNew(db, rows);
    if (kept === null || kept.bytes + size > bytes || at - kept.at > BUDGET_KEPT_MS)
      kept = { bytes: await evict(db, bytes), at };
    else kept = { ...kept, bytes: kept.bytes + size };
  };
  const change = batched(async (changes: CacheChange[]) => {
    const bytes = await budgetBytes();
    const at = now();
    const used = new Set<string>();
    const stored: CacheEntry[] = [];
    for (const change of changes)
      if ('used' in change) used.add(change.used);
      else stored.push(change.store);
    const rows = rowsOf(stored, bytes, at);
    await db.transaction('rw', db.nodeCache, async () => {
      // An entry gone since it was read (evicted, cleared) is not brought back by its use.
      if (used.size > 0)
        await db.nodeCache.bulkUpdate([...used].map((key) => ({ key, changes: { usedAt: at } })));
      await keep(rows, bytes, at);
    });
    return changes.map(() => undefined);
  }, WRITE_BATCH);

  // Each run's entries wait HOLD_MS from its first: a run that ends before then keeps them in
  // the transaction that ends it (`takeHeld`), the rest go to `change` together.
  const holdMs = options.holdMs ?? HOLD_MS;
  const held = new Map<string, { entries: HeldEntry[]; timer: ReturnType<typeof setTimeout> }>();
  /** Keeps held entries in transactions of their own (`change`), telling each writer. */
  const keepApart = (entries: readonly HeldEntry[]) => {
    for (const { entry, resolve, reject } of entries)
      change({ store: entry }).then(resolve, reject);
  };
  const hold = (entry: CacheEntry) =>
    new Promise<void>((resolve, reject) => {
      let run = held.get(entry.runId);
      if (run === undefined) {
        const fresh = {
          entries: [] as HeldEntry[],
          timer: setTimeout(() => {
            held.delete(entry.runId);
            keepApart(fresh.entries);
          }, holdMs),
        };
        held.set(entry.runId, (run = fresh));
      }
      run.entries.push({ entry, resolve, reject });
    });

  return {
    read: async (key) => given.get(key) ?? (await read(key)),
    write: async (entry) => {
      if (!given.has(entry.key)) given.set(entry.key, entry);
      try {
        await hold(entry);
      } finally {
        if (given.get(entry.key) === entry) given.delete(entry.key);
      }
    },
    drop: (key) => {
      given.delete(key);
      return db.nodeCache.delete(key);
    },
    async takeHeld(runId) {
      const run = held.get(runId);
      if (run === undefined) return null;
      held.delete(runId);
      clearTimeout(run.timer);
      // More than a batch would hold the run's ending behind them (a thousand-node run whose
      // nodes kept the engine's thread past the hold ended 270 ms later): they go apart, once
      // the ending has been shown.
      if (run.entries.length > WRITE_BATCH) {
        setTimeout(() => keepApart(run.entries), AFTER_ENDING_MS);
        return null;
      }
      let bytes: number;
      try {
        bytes = await budgetBytes();
      } catch {
        // Kept (or refused) as if never held.
        keepApart(run.entries);
        return null;
      }
      const at = now();
      const rows = rowsOf(
        run.entries.map(({ entry }) => entry),
        bytes,
        at,
      );
      return {
        keep: () => keep(rows, bytes, at),
        settled(error?: unknown) {
          for (const { resolve, reject } of run.entries)
            if (error === undefined) resolve();
            else reject(error);
        },
      };
    },
  };
}

/**
 * Add `rows`, leaving a key already stored (by another tab, say) as it is;
 * resolves with the bytes added. Inside a transaction over `nodeCache`.
 * Each add that finds its key taken fails alone and is let go, so the batch
 * costs one request a row: asking first which keys were stored walked a
 * cursor a key, a round trip each in a browser.
 */
async function addNew(db: FlowbenchDb, rows: readonly NodeCacheRow[]): Promise<number> {
  const taken = new Set<number>();
  try {
    await db.nodeCache.bulkAdd(rows);
  } catch (error) {
    // Caught here, the failed adds do not abort the transaction; any other failure does.
    if (!(error instanceof Dexie.BulkError)) throw error;
    for (const [at, failure] of Object.entries(error.failuresByPos)) {
      if (failure.name !== 'ConstraintError') throw error;
      taken.add(Number(at));
    }
  }
  return rows.reduce((sum, row, i) => (taken.has(i) ? sum : sum + row.size), 0);
}

/**
 * One call a request, served a batch a call of `run`: requests made while a
 * batch runs wait and go together in the next one (in the order asked, at
 * most `most` of them), so a burst of requests costs a few calls, and a lone
 * one goes at once (after the current microtasks). `run` answers each
 * request, by position; a batch that fails fails each of its requests.
 */
function batched<T, R>(
  run: (items: T[]) => Promise<R[]>,
  most = Infinity,
): (item: T) => Promise<R> {
  const waiting: { item: T; resolve: (result: R) => void; reject: (error: unknown) => void }[] = [];
  let running = false;
  const pump = async () => {
    while (waiting.length > 0) {
      const batch = waiting.splice(0, most);
      try {
        const results = await run(batch.map(({ item }) => item));
        batch.forEach(({ resolve }, i) => resolve(results[i]!));
      } catch (error) {
        for (const { reject } of batch) reject(error);
      }
    }
    running = false;
  };
  return (item) =>
    new Promise<R>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      if (running) return;
      running = true;
      queueMicrotask(() => void pump());
    });
}

/**
 * Evict least recently used entries until what is kept fits `budget`. Call
 * inside a transaction over `nodeCache`. Resolves with the bytes kept.
 */
async function evict(db: FlowbenchDb, budget: number): Promise<number> {
  const order: { key: string; size: number }[] = [];
  let total = 0;
  await db.nodeCache.orderBy('[usedAt+size]').eachKey((index, cursor) => {
    const size = (index as [number, number])[1];
    order.push({ key: cursor.primaryKey, size });
    total += size;
  });
  const gone: string[] = [];
  for (const { key, size } of order) {
    if (total <= budget) break;
    gone.push(key);
    total -= size;
  }
  if (gone.length > 0) await db.nodeCache.bulkDelete(gone);
  return total;
}

/** How many entries the cache holds and their bytes, read from the index alone. */
export async function cacheStats(db: FlowbenchDb): Promise<CacheStats> {
  const stats = { entries: 0, bytes: 0 };
  await db.nodeCache.orderBy('[usedAt+size]').eachKey((index) => {
    stats.entries++;
    stats.bytes += (index as [number, number])[1];
  });
  return stats;
}

/** The least time between two reads of the cache's size while its entries change. */
export const STATS_REREAD_MS = 1_000;

/** Every this many reads of the size, the whole index is read again (see `CacheTally`). */
const FULL_READ_EVERY = 10;

/**
 * What the cache holds, kept up to date by reading only the entries used or
 * stored since the last reading. Reading the whole `[usedAt+size]` index is
 * a cursor step an entry on the page's thread, and a run stores an entry a
 * node: at every second of a thousand-node run or a long sweep, the page
 * walked thousands of keys. Here a reading walks only the index's tail
 * (`usedAt` at or after the newest seen), in the same transaction as a
 * count; when the count differs from the tally's (entries evicted, dropped
 * or cleared; or one stored late with an older `usedAt`), or every
 * `FULL_READ_EVERY` readings, it reads the whole index again. Trade-off: an
 * eviction and a late store that keep the count equal leave the figures off
 * until that full reading.
 */
class CacheTally {
  private readonly sizes = new Map<string, number>();
  private newest = -Infinity;
  private readings = 0;

  constructor(private readonly db: FlowbenchDb) {}

  async read(): Promise<CacheStats> {
    const { db } = this;
    return db.transaction('r', db.nodeCache, async () => {
      const full = this.readings++ % FULL_READ_EVERY === 0;
      const from = this.newest;
      const sizes = full ? new Map<string, number>() : this.sizes;
      let newest = full ? -Infinity : this.newest;
      const keys = full
        ? db.nodeCache.orderBy('[usedAt+size]')
        : db.nodeCache.where('[usedAt+size]').aboveOrEqual([from, -Infinity]);
      await keys.eachKey((index, cursor) => {
        const [usedAt, size] = index as [number, number];
        sizes.set(cursor.primaryKey, size);
        newest = Math.max(newest, usedAt);
      });
      if (!full && sizes.size !== (await db.nodeCache.count())) {
        this.readings = 0; // entries went that the tally holds: read everything again
        return this.read();
      }
      if (full) {
        this.sizes.clear();
        for (const [key, size] of sizes) this.sizes.set(key, size);
      }
      this.newest = newest;
      let bytes = 0;
      for (const size of this.sizes.values()) bytes += size;
      return { entries: this.sizes.size, bytes };
    });
  }
}

/**
 * `cacheStats`, read again when an entry is stored, used, evicted or cleared
 * (by any tab), at most every `rereadMs`, and then only the entries that
 * changed (`CacheTally`). A change is noticed from Dexie's mutation event
 * alone, which reads nothing.
 */
export function liveCacheStats(
  db: FlowbenchDb,
  rereadMs: number = STATS_REREAD_MS,
): Live<CacheStats> {
  return {
    subscribe(observer) {
      const prefix = `idb://${db.name}/nodeCache/`;
      const tally = new CacheTally(db);
      let closed = false;
      let lastRead = -Infinity;
      let timer: ReturnType<typeof setTimeout> | undefined;
      let reading = false;
      let changedMeanwhile = false;
      const schedule = () => {
        if (closed || timer !== undefined) return;
        if (reading) {
          changedMeanwhile = true;
          return;
        }
        timer = setTimeout(read, Math.max(0, lastRead + rereadMs - Date.now()));
      };
      const read = () => {
        timer = undefined;
        reading = true;
        lastRead = Date.now();
        tally
          .read()
          .then(
            (stats) => !closed && observer.next?.(stats),
            (error: unknown) => !closed && observer.error?.(error),
          )
          .finally(() => {
            reading = false;
            if (changedMeanwhile) {
              changedMeanwhile = false;
              schedule();
            }
          });
      };
      const mutated = (parts: Record<string, unknown>) => {
        if (Object.keys(parts).some((part) => part.startsWith(prefix))) schedule();
      };
      Dexie.on.storagemutated.subscribe(mutated);
      schedule();
      return {
        unsubscribe() {
          closed = true;
          clearTimeout(timer);
          Dexie.on.storagemutated.unsubscribe(mutated);
        },
      };
    },
  };
}

/**
 * Empty the cache (runs and their records stay as they are); series kept
 * only for an entry, of runs since deleted, go with it.
 */
export function clearCache(db: FlowbenchDb): Promise<void> {
  return db.transaction('rw', [db.nodeCache, db.runs, db.runNodes, db.metrics], async () => {
    await db.nodeCache.clear();
    await dropUnlinkedSeries(db);
  });
}

/** The keys of the entries, least recently used first. */
export function cacheKeysByUse(db: FlowbenchDb): Promise<string[]> {
  return db.nodeCache.orderBy('[usedAt+size]').primaryKeys();
}

function sizeOf(entry: CacheEntry): number {
  let size = 0;
  for (const { bytes } of entry.outputs) size += bytes.byteLength;
  for (const { bytes } of entry.artifacts) size += bytes.byteLength;
  return size;
}

function rowOf(entry: CacheEntry): Omit<NodeCacheRow, 'size' | 'createdAt' | 'usedAt'> {
  return {
    key: entry.key,
    runId: entry.runId as NodeCacheRow['runId'],
    node: entry.node,
    kind: entry.kind,
    outputs: entry.outputs.map(({ port, digest, bytes }) => ({ port, digest, bytes })),
    artifacts: entry.artifacts.map(({ name, mediaType, digest, bytes }) => ({
      name,
      mediaType,
      digest,
      bytes,
    })),
  };
}

function entryOf(row: NodeCacheRow): CacheEntry {
  const { key, runId, node, kind, outputs, artifacts } = row;
  return { key, runId, node, kind, outputs, artifacts };
}
