import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { bytesDigest, lookUp, valueBytes, type CacheEntry } from '../core/cache';
import {
  cacheKeysByUse,
  cacheStats,
  clearCache,
  liveCacheStats,
  nodeCacheStore,
  WRITE_BATCH,
} from './node-cache';
import { readFileSync } from 'node:fs';
import { restoreFixtureDb, type DbFixture } from './fixtures/restore';
import { FlowbenchDb } from './schema';
import { transactionsOf, writesAmong } from './testing';

let db: FlowbenchDb;
afterEach(async () => {
  db.close();
  await db.delete();
});

/** An entry of `size` bytes (one output) under `key`. */
async function entry(key: string, size: number): Promise<CacheEntry> {
  const bytes = new Uint8Array(size).fill(size % 251);
  return {
    key,
    runId: 'run-1',
    node: 'train',
    kind: 'train.classifier',
    outputs: [{ port: 'model', digest: await bytesDigest(bytes), bytes }],
    artifacts: [],
  };
}

/** A store whose entries are kept at once (`holdMs` 0), unless `holdMs` says otherwise. */
function open(budget: number, holdMs = 0) {
  db = new FlowbenchDb(`node-cache-${crypto.randomUUID()}`);
  let clock = 0;
  return nodeCacheStore(db, { budgetBytes: () => budget, now: () => ++clock, holdMs });
}

describe('the node-output cache store', () => {
  it('keeps an entry across a reopen of the database, and gives back what it kept', async () => {
    const store = open(10_000);
    const { digest, bytes } = (await valueBytes({
      kind: 'model',
      weights: new Float32Array([1, 2]),
    }))!;
    const kept = { ...(await entry('k1', 1)), outputs: [{ port: 'model', digest, bytes }] };
    await store.write(kept);
    const name = db.name;
    db.close();
    db = new FlowbenchDb(name);
    const found = await lookUp(nodeCacheStore(db, { budgetBytes: () => 10_000 }), 'k1');
    expect(found.found).toBe('hit');
    if (found.found === 'hit')
      expect(found.values.get('model')).toEqual({
        kind: 'model',
        weights: new Float32Array([1, 2]),
      });
  });

  it('evicts the least recently used entries past its budget, a read counting as a use', async () => {
    const store = open(300);
    await store.write(await entry('a', 96));
    await store.write(await entry('b', 96));
    await store.write(await entry('c', 96));
    await store.read('a'); // now b is the least recently used
    await store.write(await entry('d', 96));
    expect(await cacheKeysByUse(db)).toEqual(['c', 'a', 'd']);
    expect(await cacheStats(db)).toEqual({ entries: 3, bytes: 288 });
  });

  it('stores a key once, however often it is written, and nothing bigger than its budget', async () => {
    const store = open(200);
    await Promise.all([store.write(await entry('a', 96)), store.write(await entry('a', 96))]);
    await store.write(await entry('huge', 201));
    expect(await cacheStats(db)).toEqual({ entries: 1, bytes: 96 });
  });

  it('answers a burst of stores and look-ups of a thousand nodes in a few transactions', async () => {
    const store = open(1 << 20);
    const entries = await Promise.all(Array.from({ length: 1000 }, (_, i) => entry(`k${i}`, 8)));
    const transactions = vi.spyOn(db, 'transaction');
    await Promise.all(entries.map((e) => store.write(e)));
    const found = await Promise.all(entries.map((e) => store.read(e.key)));
    expect(found.map((e) => e?.key)).toEqual(entries.map((e) => e.key));
    expect(await store.read('absent')).toBeUndefined();
    expect(await cacheStats(db)).toEqual({ entries: 1000, bytes: 8000 });
    // One transaction a node made a thousand-node run wait on storage for seconds; one for
    // all thousand held other writes behind it: batches of at most WRITE_BATCH, and one read.
    expect(transactions.mock.calls.length).toBeLessThanOrEqual(Math.ceil(1000 / WRITE_BATCH) + 5);
  });

  it('reads back an entry it was given before the entry is kept, and keeps it', async () => {
    const store = open(1 << 20);
    const given = await entry('fresh', 8);
    const kept = store.write(given);
    // Asked before the write's transaction has even started: found all the same.
    expect(await store.read('fresh')).toBe(given);
    await kept;
    expect(await cacheStats(db)).toEqual({ entries: 1, bytes: 8 });
    // Read again from the database itself by a store that was given nothing.
    const other = nodeCacheStore(db, { budgetBytes: () => 1 << 20 });
    expect((await other.read('fresh'))?.key).toBe('fresh');
  });

  it("is shared by two tabs: both storing the same key at once keep one entry, and each reads the other's", async () => {
    const store = open(10_000);
    const other = new FlowbenchDb(db.name); // another tab's connection to the same database
    try {
      const theirs = nodeCacheStore(other, { budgetBytes: () => 10_000 });
      await Promise.all([
        store.write(await entry('same', 96)),
        theirs.write(await entry('same', 96)),
      ]);
      await theirs.write(await entry('only-theirs', 10));
      expect(await cacheStats(db)).toEqual({ entries: 2, bytes: 106 });
      expect((await store.read('only-theirs'))?.key).toBe('only-theirs');
    } finally {
      other.close();
    }
  });

  it('empties on Clear cache, and a read just before it does not bring an entry back', async () => {
    const store = open(10_000);
    await store.write(await entry('a', 96));
    expect((await store.read('a'))?.key).toBe('a'); // marks it used, with the next writes
    await clearCache(db);
    await store.write(await entry('b', 10));
    expect(await cacheKeysByUse(db)).toEqual(['b']);
    expect(await store.read('a')).toBeUndefined();
  });

  it('starts empty in a database a version 7 release left, whose runs stay as they were', async () => {
    const fixture = JSON.parse(
      readFileSync(new URL('./fixtures/flowbench-v7.json', import.meta.url), 'utf8'),
    ) as DbFixture;
    const name = `node-cache-v7-${crypto.randomUUID()}`;
    await restoreFixtureDb(fixture, name);
    db = new FlowbenchDb(name);
    const runs = await db.runs.count();
    expect(runs).toBeGreaterThan(0);
    expect(await cacheStats(db)).toEqual({ entries: 0, bytes: 0 });
    await nodeCacheStore(db, { budgetBytes: () => 1000 }).write(await entry('a', 10));
    expect(await cacheStats(db)).toEqual({ entries: 1, bytes: 10 });
  });
});

describe("a run's entries held for its ending", () => {
  it('are read back while held, then kept together in one transaction', async () => {
    const store = open(10_000, 30);
    const seen = transactionsOf(db);
    const writes = [store.write(await entry('a', 10)), store.write(await entry('b', 10))];
    expect((await store.read('a'))?.key).toBe('a');
    expect((await cacheStats(db)).entries).toBe(0);
    await Promise.all(writes);
    expect(await cacheStats(db)).toEqual({ entries: 2, bytes: 20 });
    expect(writesAmong(seen)).toEqual([['nodeCache']]);
  });

  it("are handed over to the run's ending, kept in its transaction and told how it went", async () => {
    const store = open(10_000, 60_000);
    const told: string[] = [];
    const write = (key: string) =>
      entry(key, 10).then((e) =>
        store.write(e).then(
          () => told.push(`${key} kept`),
          () => told.push(`${key} refused`),
        ),
      );
    const writes = [write('a'), write('b')];
    await new Promise((resolve) => setTimeout(resolve, 10));
    const held = (await store.takeHeld!('run-1'))!;
    expect(await store.takeHeld!('run-1')).toBeNull();
    await db.transaction('rw', db.nodeCache, () => held.keep());
    held.settled();
    await Promise.all(writes);
    expect(told.sort()).toEqual(['a kept', 'b kept']);
    expect(await cacheStats(db)).toEqual({ entries: 2, bytes: 20 });
    // An ending that failed refuses them.
    const again = write('c');
    await new Promise((resolve) => setTimeout(resolve, 10));
    (await store.takeHeld!('run-1'))!.settled(new Error('the quota is full'));
    await again;
    expect(told).toContain('c refused');
    expect((await cacheStats(db)).entries).toBe(2);
  });

  it('are kept apart, after the ending, when more than a batch of them waits', async () => {
    const store = open(1_000_000, 60_000);
    const count = WRITE_BATCH + 1;
    const writes: Promise<void>[] = [];
    for (let i = 0; i < count; i++) writes.push(store.write(await entry(`n${i}`, 10)));
    expect(await store.takeHeld!('run-1')).toBeNull(); // nothing for the ending to carry
    await Promise.all(writes);
    expect(await cacheStats(db)).toEqual({ entries: count, bytes: count * 10 });
  });
});

describe('the cache size, live', () => {
  it('is told at once, then again after entries are stored or cleared, at most once a period', async () => {
    const store = open(10_000);
    const seen: { entries: number; bytes: number }[] = [];
    const waitFor = async (entries: number) => {
      for (let i = 0; i < 300; i++) {
        if (seen.at(-1)?.entries === entries) return;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error(`the size never said ${entries}: ${JSON.stringify(seen.at(-1))}`);
    };
    const watch = liveCacheStats(db, 50).subscribe({ next: (stats) => seen.push(stats) });
    try {
      await waitFor(0);
      for (const key of ['a', 'b', 'c', 'd', 'e']) await store.write(await entry(key, 10));
      await waitFor(5);
      // Five stores, read again far fewer times than once per store.
      expect(seen.length).toBeLessThan(6);
      expect(seen.at(-1)).toEqual({ entries: 5, bytes: 50 });
      await clearCache(db);
      await waitFor(0);
    } finally {
      watch.unsubscribe();
    }
  });

  it('reads only what changed after its first reading, and still sees entries evicted', async () => {
    const store = open(30);
    const seen: { entries: number; bytes: number }[] = [];
    const waitFor = async (entries: number, bytes: number) => {
      for (let i = 0; i < 300; i++) {
        const last = seen.at(-1);
        if (last?.entries === entries && last.bytes === bytes) return;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error(`the size never said ${entries}: ${JSON.stringify(seen.at(-1))}`);
    };
    const watch = liveCacheStats(db, 20).subscribe({ next: (stats) => seen.push(stats) });
    try {
      await waitFor(0, 0);
      for (const key of ['a', 'b', 'c']) await store.write(await entry(key, 10));
      await waitFor(3, 30);
      await store.write(await entry('d', 20)); // evicts a and b
      await waitFor(2, 30);
      await store.read('c');
      await store.write(await entry('e', 10)); // evicts d, the least recently used now
      await waitFor(2, 20);
    } finally {
      watch.unsubscribe();
    }
  });
});
