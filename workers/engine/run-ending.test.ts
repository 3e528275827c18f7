import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { createCatalog } from '../../src/core/catalog/catalog';
import { defineNodeKind } from '../../src/core/catalog/kind';
import type { FlowDocument } from '../../src/core/flow/document';
import type { RunId } from '../../src/core/run/record';
import { metricSeries } from '../../src/db/metrics';
import { getRun, readRunRecord } from '../../src/db/runs';
import { FlowbenchDb } from '../../src/db/schema';
import {
  quotaExceeded,
  refuseWrites,
  transactionAborted,
  type StorageWrite,
} from '../../src/db/testing';
import {
  isQuotaExceeded,
  RunEndingError,
  PendingEndings,
  storageFailureReason,
} from './run-ending';
import { driveRun } from './run-driver';
import { journalTestRun, testDriverOptions } from './testing';

/** A node that emits `ticks` numbers as fast as it can, yielding now and then, until cancelled. */
const ticker = defineNodeKind({
  kind: 'test.ticker',
  title: 'Ticker',
  category: 'data',
  description: 'Emits numbers.',
  params: {},
  inputs: [],
  outputs: [{ name: 'value', type: 'number', stream: true, description: 'A number.' }],
  async execute(ctx) {
    for (let i = 0; i < 100_000 && !ctx.signal.aborted; i++) {
      ctx.emit('value', i);
      if (i % 50 === 49) await new Promise((r) => setTimeout(r, 0));
    }
  },
});
const flow: FlowDocument = {
  format: 'flowbench.flow/1',
  name: 'ticks',
  inputs: [],
  outputs: [],
  nodes: [{ id: 'tick', kind: 'test.ticker', params: {}, position: { x: 0, y: 0 } }],
  edges: [],
};

let db: FlowbenchDb;

describe("the browser's quota refusal", () => {
  it('is recognised as Chromium reports it: the transaction aborted, QuotaExceededError inside', () => {
    // What Dexie rejects with when Chromium aborts a transaction at commit for lack of quota.
    const refused = transactionAborted('QuotaExceededError', quotaExceeded());
    expect(isQuotaExceeded(refused)).toBe(true);
    expect(storageFailureReason(refused)).toMatch(/^storage quota exceeded\b.*QuotaExceededError/);
    const other = transactionAborted('Transaction aborted', new DOMException('', 'UnknownError'));
    expect(isQuotaExceeded(other)).toBe(false);
    expect(storageFailureReason(other)).toMatch(/^could not store the run's record: /);
  });
});

/** A node that keeps an artifact and goes on: the run awaits its artifacts only at the end. */
const keeper = defineNodeKind({
  kind: 'test.keeper',
  title: 'Keeper',
  category: 'data',
  description: 'Keeps an artifact, then works a while.',
  params: {},
  inputs: [],
  outputs: [],
  async execute(ctx) {
    ctx.artifact('weights', Uint8Array.of(1, 2, 3), 'application/octet-stream');
    await new Promise((r) => setTimeout(r, 20));
  },
});

/** A fresh database whose storage refuses, for lack of quota, each write `refuse` picks. */
function refusing(refuse: (write: StorageWrite) => boolean): FlowbenchDb {
  const fresh = new FlowbenchDb(`ending-${crypto.randomUUID()}`);
  refuseWrites(fresh, refuse);
  return fresh;
}

/**
 * Metric batches are refused for lack of quota after `okBatches` of them
 * (`onFull` at each refusal); `written` holds the batches let through.
 */
function fillUpAfter(okBatches: number, onFull = () => {}) {
  const written: (readonly unknown[])[] = [];
  const refuse = (write: StorageWrite): boolean => {
    if (write.table !== 'metrics') return false;
    if (written.length >= okBatches) {
      onFull();
      return true;
    }
    written.push(write.rows);
    return false;
  };
  return { written, refuse };
}

/** The write that ends a run's record (it sets `finishedAt`). */
const isEnding = (write: StorageWrite) =>
  write.table === 'runs' && write.changes !== undefined && 'finishedAt' in write.changes;

describe('a run whose storage quota fills up', () => {
  afterEach(async () => {
    db.close();
    await db.delete();
  });

  it('is stopped and ends error naming the quota, keeping every point written before', async () => {
    const { written, refuse } = fillUpAfter(3);
    db = refusing(refuse);
    const id = await journalTestRun(db, flow, {});
    const reported: string[] = [];
    const status = await driveRun(id, new AbortController().signal, {
      ...testDriverOptions(db),
      catalog: createCatalog([ticker]),
      metricBatch: { maxPoints: 100 },
      onStorageFailure: (reason) => reported.push(reason),
    });

    expect(status).toBe('error');
    const record = (await readRunRecord(db, id))!;
    expect(record.run.status).toBe('error');
    expect(record.run.statusReason).toMatch(/^storage quota exceeded\b.*QuotaExceededError/);
    expect(record.run.leaseUntil).toBeNull();
    expect(reported).toEqual([record.run.statusReason]);
    expect(record.nodes.find((n) => n.node === 'tick')?.status).toBe('interrupted');
    // The three committed batches, whole: steps 0 … 299 once each.
    const points = await metricSeries(db, id, 'tick.value');
    expect(written).toHaveLength(3);
    expect(points.map((p) => p.step)).toEqual([...Array(300).keys()]);
  });

  it('never leaves a node running when its final outcome was refused and its ending fits', async () => {
    // Full from the second metric batch until the first try of the ending; room again for the retry.
    let full = false;
    const metrics = fillUpAfter(1, () => (full = true));
    db = refusing((write) => {
      if (metrics.refuse(write)) return true;
      if (write.table === 'runNodes') return full;
      if (full && isEnding(write)) {
        full = false;
        return true;
      }
      return false;
    });
    const id = await journalTestRun(db, flow, {});

    const status = await driveRun(id, new AbortController().signal, {
      ...testDriverOptions(db),
      catalog: createCatalog([ticker]),
      metricBatch: { maxPoints: 100 },
    });

    expect(status).toBe('error');
    const record = (await readRunRecord(db, id))!;
    expect(record.run.status).toBe('error');
    expect(record.run.statusReason).toMatch(/^storage quota exceeded\b/);
    expect(record.nodes.map((n) => n.status)).toEqual(['interrupted']);
  });

  it('stops the run at a refused artifact, as at any refused write, naming the quota', async () => {
    db = refusing((write) => write.table === 'artifacts');
    const id = await journalTestRun(
      db,
      {
        ...flow,
        nodes: [{ id: 'keep', kind: 'test.keeper', params: {}, position: { x: 0, y: 0 } }],
      },
      {},
    );
    const status = await driveRun(id, new AbortController().signal, {
      ...testDriverOptions(db),
      catalog: createCatalog([keeper]),
    });
    expect(status).toBe('error');
    expect((await getRun(db, id))?.statusReason).toMatch(/^storage quota exceeded\b/);
  });

  it('keeps an ending it could not write, and writes it once a write fits again', async () => {
    let full = true;
    const metrics = fillUpAfter(1);
    db = refusing((write) => metrics.refuse(write) || (full && isEnding(write)));
    const id = await journalTestRun(db, flow, {});

    const driving = driveRun(id, new AbortController().signal, {
      ...testDriverOptions(db),
      catalog: createCatalog([ticker]),
      metricBatch: { maxPoints: 100 },
    });
    const error = await driving.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RunEndingError);
    const { ending, code } = error as RunEndingError;
    expect(code).toBe('storage-quota');
    expect(ending.status).toBe('error');
    expect((await getRun(db, id))?.status).toBe('running');

    // The run's Web Lock, as the engine holds it: held while the ending waits to be written.
    const locks: { runId: RunId; released: boolean }[] = [];
    const pending = new PendingEndings(async (runId, body) => {
      const lock = { runId, released: false };
      locks.push(lock);
      await body();
      lock.released = true;
    });
    pending.keep(id, ending);
    await pending.store(db);
    expect(pending.size).toBe(1);
    expect((await getRun(db, id))?.status).toBe('running');
    expect(locks).toEqual([{ runId: id, released: false }]);

    full = false;
    await pending.store(db);
    expect(pending.size).toBe(0);
    expect(locks).toEqual([{ runId: id, released: true }]);
    const run = await getRun(db, id);
    expect(run?.status).toBe('error');
    expect(run?.statusReason).toMatch(/^storage quota exceeded\b/);
    expect((await metricSeries(db, id, 'tick.value')).map((p) => p.step)).toEqual([
      ...Array(100).keys(),
    ]);
  });
});
