import 'fake-indexeddb/auto';
import { Dexie } from 'dexie';
import { afterEach, describe, expect, it } from 'vitest';
import { createCatalog } from '../../src/core/catalog/catalog';
import { defineNodeKind } from '../../src/core/catalog/kind';
import type { FlowDocument } from '../../src/core/flow/document';
import type { MetricRow, RunId, RunNodeRow } from '../../src/core/run/record';
import { metricSeries, readRunRecord } from '../../src/db/runs';
import { FlowbenchDb } from '../../src/db/schema';
import {
  isQuotaExceeded,
  RunEndingError,
  storageFailureReason,
  storePendingEndings,
  type RunEnding,
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

const quotaError = () => new DOMException('The quota has been exceeded.', 'QuotaExceededError');

let db: FlowbenchDb;

describe("the browser's quota refusal", () => {
  it('is recognised as Chromium reports it: the transaction aborted, QuotaExceededError inside', () => {
    // What Dexie rejects with when Chromium aborts a transaction at commit for lack of quota.
    const refused = new Dexie.AbortError('QuotaExceededError', quotaError());
    expect(isQuotaExceeded(refused)).toBe(true);
    expect(storageFailureReason(refused)).toMatch(/^storage quota exceeded\b.*QuotaExceededError/);
    const other = new Dexie.AbortError('Transaction aborted', new DOMException('', 'UnknownError'));
    expect(isQuotaExceeded(other)).toBe(false);
    expect(storageFailureReason(other)).toMatch(/^could not store the run's record: /);
  });
});

/** Metric writes fail for lack of quota after `okBatches` batches (`onFull` at the first refusal). */
function fillUpAfter(okBatches: number, onFull = () => {}): MetricRow[][] {
  const written: MetricRow[][] = [];
  const bulkPut = db.metrics.bulkPut.bind(db.metrics);
  db.metrics.bulkPut = ((rows: MetricRow[]) => {
    if (written.length >= okBatches) {
      onFull();
      return Promise.reject(quotaError());
    }
    written.push(rows);
    return bulkPut(rows);
  }) as typeof db.metrics.bulkPut;
  return written;
}

describe('a run whose storage quota fills up', () => {
  afterEach(async () => {
    db.close();
    await db.delete();
  });

  it('is stopped and ends error naming the quota, keeping every point written before', async () => {
    db = new FlowbenchDb(`ending-${crypto.randomUUID()}`);
    const id = await journalTestRun(db, flow, {});
    const written = fillUpAfter(3);
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
    db = new FlowbenchDb(`ending-${crypto.randomUUID()}`);
    const id = await journalTestRun(db, flow, {});
    // Full from the second metric batch until the first try of the ending; room again for the retry.
    let full = false;
    fillUpAfter(1, () => (full = true));
    const bulkPut = db.runNodes.bulkPut.bind(db.runNodes);
    db.runNodes.bulkPut = ((rows: RunNodeRow[]) =>
      full ? Promise.reject(quotaError()) : bulkPut(rows)) as typeof db.runNodes.bulkPut;
    const update = db.runs.update.bind(db.runs);
    db.runs.update = ((key: RunId, changes: object) => {
      if (full && 'finishedAt' in changes) {
        full = false;
        return Promise.reject(quotaError());
      }
      return update(key, changes);
    }) as typeof db.runs.update;

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

  it('keeps an ending it could not write, and writes it once a write fits again', async () => {
    db = new FlowbenchDb(`ending-${crypto.randomUUID()}`);
    const id = await journalTestRun(db, flow, {});
    fillUpAfter(1);
    let full = true;
    const update = db.runs.update.bind(db.runs);
    db.runs.update = ((key: RunId, changes: object) =>
      full && 'finishedAt' in changes
        ? Promise.reject(quotaError())
        : update(key, changes)) as typeof db.runs.update;

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
    expect((await db.runs.get(id))?.status).toBe('running');

    const pending = new Map<RunId, RunEnding>([[id, ending]]);
    await storePendingEndings(db, pending);
    expect(pending.size).toBe(1);
    expect((await db.runs.get(id))?.status).toBe('running');

    full = false;
    await storePendingEndings(db, pending);
    expect(pending.size).toBe(0);
    const run = await db.runs.get(id);
    expect(run?.status).toBe('error');
    expect(run?.statusReason).toMatch(/^storage quota exceeded\b/);
    expect((await metricSeries(db, id, 'tick.value')).map((p) => p.step)).toEqual([
      ...Array(100).keys(),
    ]);
  });
});
