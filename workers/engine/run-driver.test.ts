import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import type { FlowDocument } from '../../src/core/flow/document';
import type { RunId, RunRow } from '../../src/core/run/record';
import { FlowbenchDb } from '../../src/db/schema';
import { metricSeries } from '../../src/db/metrics';
import { getRun, readRunRecord, updateRun } from '../../src/db/runs';
import { createCatalog } from '../../src/core/catalog/catalog';
import { defineNodeKind } from '../../src/core/catalog/kind';
import type { BackendChoice } from '../../src/core/runtime/tensor-runtime';
import { runFingerprintSchema } from '../../src/core/records/fingerprint';
import { engineFingerprint } from './fingerprint';
import { engineInfo } from './adapter';
import { driveRun } from './run-driver';
import {
  journalTestRun,
  loadFlow,
  manualTimers,
  testDriverOptions,
  testGate,
  until,
} from './testing';
import { runNodes } from '../../src/db/run-nodes';
import { transactionsOf, writesAmong } from '../../src/db/testing';
import { cacheStats, nodeCacheStore } from '../../src/db/node-cache';
import { builtinCatalog } from '../../src/core/nodes';

const example = loadFlow('src/examples/spirals-mlp.flow.json');
/** A hundred synthetic rows split in two: a run of a few milliseconds. */
const tiny = loadFlow('e2e/flows/tiny-sweep.flow.json');

let db: FlowbenchDb;
let counter = 0;
afterEach(async () => {
  db.close();
  await db.delete();
});

const journal = (flow: FlowDocument, params: RunRow['params'], seed = 0) =>
  journalTestRun(db, flow, params, { seed });
const options = () => testDriverOptions(db);

describe('driveRun on the example flow (real onnxruntime, WASM)', () => {
  it('trains, records a falling loss, node outcomes, the accuracy and the model artifact', async () => {
    db = new FlowbenchDb(`driver-${++counter}`);
    const id = await journal(example, {});
    const status = await driveRun(id, new AbortController().signal, options());
    expect(status).toBe('ok');

    const record = (await readRunRecord(db, id))!;
    expect(record.run.status).toBe('ok');
    expect(record.run.engine?.backend).toBe('wasm');
    expect(record.nodes.map((n) => [n.node, n.status]).sort()).toEqual([
      ['data', 'ok'],
      ['eval', 'ok'],
      ['model', 'ok'],
      ['split', 'ok'],
      ['train', 'ok'],
    ]);
    const loss = await metricSeries(db, id, 'train.loss');
    expect(loss.map((p) => p.step)).toEqual(loss.map((_, i) => i));
    expect(loss).toHaveLength(80);
    expect(loss[0]!.value).toBeGreaterThan(loss.at(-1)!.value * 2);
    expect(record.run.result.accuracy).toBeGreaterThan(0.85);
    const model = record.artifacts.find((a) => a.name === 'model');
    expect(model).toMatchObject({ node: 'train', mediaType: 'application/onnx' });
    expect(model!.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    // The evaluation keeps its confusion matrix beside the model.
    expect(record.artifacts.map((a) => `${a.node} ${a.name}`).sort()).toEqual([
      'eval confusion-matrix',
      'train model',
    ]);
  });

  it('gives the same loss series for the same params and seed', async () => {
    db = new FlowbenchDb(`driver-${++counter}`);
    const a = await journal(example, { steps: 40 }, 7);
    const b = await journal(example, { steps: 40 }, 7);
    const c = await journal(example, { steps: 40 }, 8);
    for (const id of [a, b, c]) await driveRun(id, new AbortController().signal, options());
    const values = async (id: RunId) =>
      (await metricSeries(db, id, 'train.loss')).map((p) => p.value);
    expect(await values(a)).toEqual(await values(b));
    expect(await values(a)).not.toEqual(await values(c));
  });

  it('refuses to drive a run twice', async () => {
    db = new FlowbenchDb(`driver-${++counter}`);
    const id = await journal(example, { steps: 5 });
    const [first, second] = await Promise.allSettled([
      driveRun(id, new AbortController().signal, options()),
      driveRun(id, new AbortController().signal, options()),
    ]);
    expect([first.status, second.status].sort()).toEqual(['fulfilled', 'rejected']);
  });

  it('ends cancelled, keeping the points flushed before the cancel', async () => {
    db = new FlowbenchDb(`driver-${++counter}`);
    const id = await journal(example, { steps: 100_000 });
    const controller = new AbortController();
    const driving = driveRun(id, controller.signal, options());
    while ((await metricSeries(db, id, 'train.loss')).length < 3)
      await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    expect(await driving).toBe('cancelled');
    const record = (await readRunRecord(db, id))!;
    expect(record.run.statusReason).toBe('Cancelled while running');
    expect(record.nodes.find((n) => n.node === 'train')?.status).toBe('cancelled');
    expect(record.nodes.find((n) => n.node === 'eval')?.status).toBe('cancelled');
    expect(record.metrics.length).toBeGreaterThanOrEqual(3);
  });

  it('says when storage holds its writes past the limit, and when they answer again, losing nothing', async () => {
    db = new FlowbenchDb(`driver-${++counter}`);
    const id = await journal(example, { steps: 40 });
    // Another connection (another tab) keeps a read-write transaction on the metrics open.
    const other = await new Promise<IDBDatabase>((resolve) => {
      const open = indexedDB.open(db.name);
      open.onsuccess = () => resolve(open.result);
    });
    let held = true;
    const hold = other.transaction('metrics', 'readwrite');
    const spin = () => {
      if (held) hold.objectStore('metrics').count().onsuccess = spin;
    };
    spin();
    const told: (number | null)[] = [];
    const driving = driveRun(id, new AbortController().signal, {
      ...options(),
      storageStallMs: 200,
      onStorageStall: (waited) => told.push(waited),
    });
    while (told.length === 0) await new Promise((r) => setTimeout(r, 20));
    expect(told[0]).toBeGreaterThanOrEqual(200);
    expect((await getRun(db, id))?.status).toBe('running');
    held = false;
    expect(await driving).toBe('ok');
    other.close();
    // Once the hold ends, the last word is that writes answer again. (A busy machine may hold a
    // later write past the limit too; each such stall is reported and cleared the same way.)
    expect(told.at(-1)).toBeNull();
    expect(told.every((waited, i) => (i % 2 === 0 ? waited! >= 200 : waited === null))).toBe(true);
    expect(await metricSeries(db, id, 'train.loss')).toHaveLength(8); // 40 steps, one loss per 5
  });

  it('records a forced WebGPU run without an adapter as an error that says why', async () => {
    db = new FlowbenchDb(`driver-${++counter}`);
    const id = await journal(example, { steps: 5 });
    await updateRun(db, id, { backendChoice: 'webgpu' });
    const status = await driveRun(id, new AbortController().signal, options());
    expect(status).toBe('error');
    expect((await getRun(db, id))?.statusReason).toMatch(/no WebGPU adapter/);
  });

  it('records the fingerprint of the engine that claimed the run, even when it could not run', async () => {
    db = new FlowbenchDb(`driver-${++counter}`);
    const id = await journal(example, { steps: 5 });
    await updateRun(db, id, { backendChoice: 'webgpu' });
    const info = engineInfo(null);
    const fingerprint = (choice: BackendChoice) => engineFingerprint(info, choice);
    const status = await driveRun(id, new AbortController().signal, { ...options(), fingerprint });
    expect(status).toBe('error');
    const run = (await getRun(db, id))!;
    expect(runFingerprintSchema.safeParse(run.fingerprint).success).toBe(true);
    // What was asked for, on an engine with no adapter: the comparison of a re-run sees both.
    expect(run.fingerprint).toMatchObject({ backend: 'webgpu', adapter: null });
  });
});

describe('driveRun with a node that records waits', () => {
  it('stores its intervals on the run, for the run view and the export', async () => {
    db = new FlowbenchDb(`driver-${Date.now()}`);
    const waiter = defineNodeKind({
      kind: 'test.waiter',
      title: 'Waiter',
      category: 'data',
      description: 'Records two waits.',
      params: {},
      inputs: [],
      outputs: [],
      execute(ctx) {
        ctx.interval('data_wait', 10, 10.5);
        ctx.interval('quota_wait', 11, 11.25);
        return Promise.resolve();
      },
    });
    const flow: FlowDocument = {
      format: 'flowbench.flow/1',
      name: 'waits',
      inputs: [],
      outputs: [],
      nodes: [{ id: 'w', kind: 'test.waiter', params: {}, position: { x: 0, y: 0 } }],
      edges: [],
    };
    const id = await journal(flow, {});
    const status = await driveRun(id, new AbortController().signal, {
      ...options(),
      catalog: createCatalog([waiter]),
    });
    expect(status).toBe('ok');
    const record = await readRunRecord(db, id);
    expect(record?.intervals).toEqual([
      { runId: id, kind: 'data_wait', start: 10, end: 10.5 },
      { runId: id, kind: 'quota_wait', start: 11, end: 11.25 },
    ]);
  });
});

describe('driveRun while a node runs long', () => {
  it('writes the node logs as they grow, not only when its status changes', async () => {
    db = new FlowbenchDb(`driver-${++counter}`);
    const gate = testGate();
    const id = await journal(gate.flow, {});
    const driving = driveRun(id, new AbortController().signal, {
      ...options(),
      catalog: gate.catalog,
    });
    await until(async () => (await runNodes(db, id))[0]?.status === 'running');
    await until(() => gate.waiting() === 1);
    // The node logs with its status written long before: a crash now must still keep the line.
    gate.log('halfway');
    await until(async () => (await runNodes(db, id))[0]?.logs.endsWith('halfway') ?? false);
    expect((await runNodes(db, id))[0]?.status).toBe('running');
    expect((await getRun(db, id))?.status).toBe('running');
    gate.openOne();
    expect(await driving).toBe('ok');
    expect((await runNodes(db, id))[0]).toMatchObject({
      status: 'ok',
      logs: 'waiting at the gate\nhalfway\nthrough the gate',
    });
  });
});

describe('driveRun of a quick run', () => {
  it('writes its node outcomes once, with its ending, in one transaction', async () => {
    db = new FlowbenchDb(`driver-${++counter}`);
    const quick = defineNodeKind({
      kind: 'test.quick',
      title: 'Quick',
      category: 'data',
      description: 'Does nothing, at once.',
      params: {},
      inputs: [],
      outputs: [],
      execute: () => Promise.resolve(),
    });
    const flow: FlowDocument = {
      format: 'flowbench.flow/1',
      name: 'quick',
      inputs: [],
      outputs: [],
      nodes: ['a', 'b'].map((id, i) => ({
        id,
        kind: 'test.quick',
        params: {},
        position: { x: 200 * i, y: 0 },
      })),
      edges: [],
    };
    // Which stores each write touched, in order.
    const seen = transactionsOf(db);
    const id = await journal(flow, {});
    // No batch of node outcomes falls due while it runs: it ends within the batches' delay.
    const timers = manualTimers();
    const status = await driveRun(id, new AbortController().signal, {
      ...options(),
      catalog: createCatalog([quick]),
      setTimer: timers.setTimer,
    });
    expect(status).toBe('ok');
    // Queued, running and ok, for both nodes: one write, the ending's.
    expect(writesAmong(seen).filter((stores) => stores.includes('runNodes'))).toEqual([
      ['runList', 'runNodes', 'runs'],
    ]);
    const record = await readRunRecord(db, id);
    expect(record?.run.status).toBe('ok');
    expect(record?.nodes.map((n) => [n.node, n.status])).toEqual([
      ['a', 'ok'],
      ['b', 'ok'],
    ]);
  });

  it('writes its node-cache entries with its ending too, and a run after it finds them', async () => {
    db = new FlowbenchDb(`driver-${++counter}`);
    // Held for as long as the run takes: only its ending keeps them.
    const nodeCache = nodeCacheStore(db, { budgetBytes: () => 1 << 20, holdMs: 60_000 });
    const seen = transactionsOf(db);
    const run = async () => {
      const id = await journal(tiny, { seed: 3 });
      const status = await driveRun(id, new AbortController().signal, {
        ...options(),
        catalog: builtinCatalog,
        setTimer: manualTimers().setTimer,
        nodeCache,
      });
      expect(status).toBe('ok');
      return (await readRunRecord(db, id))!;
    };
    await run();
    // The data and its split: kept in the ending's one transaction, with the nodes.
    expect(
      writesAmong(seen).filter(
        (stores) => stores.includes('nodeCache') || stores.includes('runNodes'),
      ),
    ).toEqual([['nodeCache', 'runList', 'runNodes', 'runs']]);
    expect((await cacheStats(db)).entries).toBe(2);
    const again = await run();
    expect(again.nodes.map((n) => [n.node, n.status])).toEqual([
      ['data', 'cached'],
      ['split', 'cached'],
    ]);
  });
});
