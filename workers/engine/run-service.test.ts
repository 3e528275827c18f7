/**
 * The browser's one run queue, as two tabs' engines see it: two services
 * over two connections to one database, sharing one set of Web Locks (as the
 * tabs of one browser profile do). Runs here are gates (testing.ts) that stay
 * running until the test opens them, so what is running when is exact.
 */
import 'fake-indexeddb/auto';
import { afterEach, expect, it } from 'vitest';
import type { AdapterInfo } from '../../src/core/runtime/tensor-runtime';
import type { RunId, RunRow, RunStatus } from '../../src/core/run/record';
import { runNodes } from '../../src/db/run-nodes';
import { getRun, requestCancel, runsByIds } from '../../src/db/runs';
import { FlowbenchDb } from '../../src/db/schema';
import { transactionsOf, writesAmong } from '../../src/db/testing';
import { engineInfo } from './adapter';
import { RunService, slotLockName, type RunServiceOptions } from './run-service';
import {
  journalTestRun,
  loadFlow,
  nodeRuntime,
  testDriverOptions,
  testGate,
  testLocks,
  until,
} from './testing';

const example = loadFlow('src/examples/spirals-mlp.flow.json');
const adapter: AdapterInfo = { vendor: 'test', architecture: 'gpu', isFallbackAdapter: false };

let n = 0;
const opened: FlowbenchDb[] = [];
const services: RunService[] = [];
afterEach(async () => {
  for (const service of services.splice(0)) await service.settled();
  for (const db of opened.splice(0)) db.close();
  await new FlowbenchDb(`service-${n}`).delete();
});

/** A fresh database; each call of `connect` is another tab's connection to it. */
function database() {
  const name = `service-${++n}`;
  const connect = () => {
    const db = new FlowbenchDb(name);
    opened.push(db);
    return db;
  };
  return { db: connect(), connect };
}

/** What one engine did: the runs it finished, and how often it nudged the others. */
interface Engine {
  service: RunService;
  finished: Map<RunId, RunStatus>;
  announced: number;
}

function engine(
  db: FlowbenchDb,
  locks: ReturnType<typeof testLocks>,
  changes: Partial<RunServiceOptions> & { adapter?: AdapterInfo } = {},
): Engine {
  const info = engineInfo(changes.adapter ?? null);
  const made: Engine = { service: null!, finished: new Map(), announced: 0 };
  made.service = new RunService({
    ...testDriverOptions(db),
    engineInfo: () => Promise.resolve(info),
    runtimeFor: (choice) => nodeRuntime(info)(choice),
    onProgress: () => undefined,
    onFinished: (runId, status) => made.finished.set(runId, status),
    announce: () => made.announced++,
    withLock: locks.withLock,
    tryLock: locks.tryLock,
    ...changes,
  });
  services.push(made.service);
  return made;
}

const statuses = async (db: FlowbenchDb, ids: readonly RunId[]) =>
  (await runsByIds(db, ids)).map((run) => run.status);

async function journalGates(
  db: FlowbenchDb,
  gate: ReturnType<typeof testGate>,
  count: number,
  changes: Partial<RunRow> = {},
): Promise<RunId[]> {
  const ids: RunId[] = [];
  for (let i = 0; i < count; i++) ids.push(await journalTestRun(db, gate.flow, {}, changes));
  return ids;
}

it('two engines share one queue: oldest first, never more than two runs at once across both', async () => {
  const { db, connect } = database();
  const locks = testLocks();
  const gate = testGate();
  const ids = await journalGates(db, gate, 5);
  const a = engine(connect(), locks, { catalog: gate.catalog });
  const b = engine(connect(), locks, { catalog: gate.catalog });

  expect(await a.service.take({ announce: true })).toEqual(ids.slice(0, 2));
  // Both slots are held by the first engine: the second takes nothing, though it is idle.
  expect(await b.service.take({ announce: true })).toEqual([]);
  await until(() => gate.waiting() === 2);
  expect(locks.held()).toEqual(
    [slotLockName(0), slotLockName(1), ...ids.slice(0, 2).map(lock)].sort(),
  );
  expect(await statuses(db, ids)).toEqual(['running', 'running', 'queued', 'queued', 'queued']);

  // A run ends: its slot passes to the oldest queued run, and still two run at once.
  gate.openOne();
  await until(async () => (await statuses(db, ids))[2] === 'running');
  expect(await statuses(db, ids)).toEqual(['ok', 'running', 'running', 'queued', 'queued']);

  gate.openOne();
  await until(async () => (await statuses(db, ids))[3] === 'running');
  expect(await b.service.take({ announce: true })).toEqual([]);
  gate.openOne();
  await until(() => gate.waiting() === 2);
  expect(await statuses(db, ids)).toEqual(['ok', 'ok', 'ok', 'running', 'running']);
  gate.openOne();
  gate.openOne();
  await until(async () => (await statuses(db, ids)).every((status) => status === 'ok'));
  expect([...a.finished.keys()].sort()).toEqual(ids);
});

it('a look that claims the last queued run tries no other slot (its claim would find nothing)', async () => {
  const { db, connect } = database();
  const locks = testLocks();
  const gate = testGate();
  const [id] = await journalGates(db, gate, 1);
  const tried: string[] = [];
  const a = engine(connect(), locks, {
    catalog: gate.catalog,
    tryLock: (name, body) => {
      tried.push(name);
      return locks.tryLock(name, body);
    },
  });

  expect(await a.service.take({ announce: true })).toEqual([id]);
  expect(tried).toEqual([slotLockName(0)]);
  // Nothing was left queued, so nobody is told of runs waiting.
  expect(a.announced).toBe(0);
  await until(() => gate.waiting() === 1);
  gate.openOne();
  await until(async () => (await statuses(db, [id!]))[0] === 'ok');
});

it('an engine takes the runs another tab journaled and left, and any free slot', async () => {
  const { db, connect } = database();
  const locks = testLocks();
  const gate = testGate();
  // A tab that journaled three runs and was closed before its engine took any.
  const ids = await journalGates(db, gate, 3);
  const b = engine(connect(), locks, { catalog: gate.catalog });
  // A third tab's engine holds one slot: the other is free.
  const busy = await locks.tryLock(slotLockName(0), async () => {
    expect(await b.service.take({ announce: true })).toEqual([ids[0]]);
    expect(await statuses(db, ids)).toEqual(['running', 'queued', 'queued']);
  });
  expect(busy).not.toBeNull();
  // That slot is free again: looking again takes the next oldest.
  expect(await b.service.take({ announce: false })).toEqual([ids[1]]);
  expect(await statuses(db, ids)).toEqual(['running', 'running', 'queued']);
  // Each run that ends frees a slot, and the engine takes the last.
  await until(async () => {
    gate.openOne();
    return (await statuses(db, ids)).every((status) => status === 'ok');
  });
  expect([...b.finished.keys()]).toEqual(expect.arrayContaining(ids));
});

it('a run that requires WebGPU: an engine without an adapter leaves it, saying why, and takes the next; one with an adapter takes it', async () => {
  const { db, connect } = database();
  const locks = testLocks();
  const gate = testGate();
  const [gpu] = await journalGates(db, gate, 1, { requires: ['webgpu'] });
  const [cpu] = await journalGates(db, gate, 1);
  const wasmOnly = engine(connect(), locks, { catalog: gate.catalog });
  expect(await wasmOnly.service.take({ announce: true })).toEqual([cpu]);
  expect(await getRun(db, gpu!)).toMatchObject({
    status: 'queued',
    statusReason: 'Waiting for an engine with webgpu',
  });
  // It told the other engines that a run waits.
  expect(wasmOnly.announced).toBe(1);
  expect(await wasmOnly.service.take({ announce: false })).toEqual([]);
  expect(wasmOnly.announced).toBe(1);

  const withGpu = engine(connect(), locks, { catalog: gate.catalog, adapter });
  expect(await withGpu.service.take({ announce: false })).toEqual([gpu]);
  expect(await getRun(db, gpu!)).toMatchObject({ status: 'running', statusReason: '' });
  await until(() => gate.waiting() === 2);
  gate.openOne();
  gate.openOne();
  await until(() => wasmOnly.finished.size + withGpu.finished.size === 2);
  expect(withGpu.finished.get(gpu!)).toBe('ok');
  expect(wasmOnly.finished.get(cpu!)).toBe('ok');
  expect(withGpu.announced).toBe(0);
});

it('a cancel request from another tab stops the run where it is driven, at once with a nudge', async () => {
  const { db, connect } = database();
  const locks = testLocks();
  const gate = testGate();
  const [id] = await journalGates(db, gate, 1);
  const driver = engine(connect(), locks, { catalog: gate.catalog });
  const other = engine(connect(), locks, { catalog: gate.catalog });
  await driver.service.take({ announce: true });
  await until(() => gate.waiting() === 1);

  expect(await requestCancel(connect(), id!, new Date())).toBe('requested');
  // The nudge reaches every engine; only the one driving the run stops it.
  expect(await other.service.cancelRequested(id!)).toBe(false);
  expect(await driver.service.cancelRequested(id!)).toBe(true);
  await until(() => driver.finished.has(id!));
  expect(driver.finished.get(id!)).toBe('cancelled');
  expect(await getRun(db, id!)).toMatchObject({
    status: 'cancelled',
    statusReason: 'Cancelled while running',
  });
  expect((await runNodes(db, id!))[0]?.status).toBe('cancelled');
});

it('a cancel request with no nudge is found at the next lease renewal', async () => {
  const { db, connect } = database();
  const locks = testLocks();
  const gate = testGate();
  const [id] = await journalGates(db, gate, 1);
  const driver = engine(connect(), locks, {
    catalog: gate.catalog,
    leaseMs: 300,
    cancelPollMs: 180_000,
  });
  await driver.service.take({ announce: true });
  await until(() => gate.waiting() === 1);
  await requestCancel(connect(), id!, new Date());
  await until(() => driver.finished.has(id!));
  expect(driver.finished.get(id!)).toBe('cancelled');
});

it('a cancel request with no nudge is found between lease renewals, within a second', async () => {
  const { db, connect } = database();
  const locks = testLocks();
  const gate = testGate();
  const [id] = await journalGates(db, gate, 1);
  // A renewal would come after a minute: only the reads between renewals can find it.
  const driver = engine(connect(), locks, { catalog: gate.catalog, leaseMs: 180_000 });
  await driver.service.take({ announce: true });
  await until(() => gate.waiting() === 1);
  await requestCancel(connect(), id!, new Date());
  await until(() => driver.finished.has(id!));
  expect(driver.finished.get(id!)).toBe('cancelled');
});

it('a cancel request that lands between the claim and the driving is not left to the lease renewal', async () => {
  const { db, connect } = database();
  const locks = testLocks();
  const gate = testGate();
  // As if written just after the claim, before any engine drove the run: nobody was there to nudge.
  const [id] = await journalGates(db, gate, 1, { cancelRequestedAt: new Date().toISOString() });
  // Neither a renewal nor a read between renewals comes for minutes; the run must not wait for them.
  const driver = engine(connect(), locks, {
    catalog: gate.catalog,
    leaseMs: 180_000,
    cancelPollMs: 180_000,
  });
  expect(await driver.service.take({ announce: true })).toEqual([id]);
  await until(() => driver.finished.has(id!));
  expect(driver.finished.get(id!)).toBe('cancelled');
  expect(gate.waiting()).toBe(0);
});

it('a queued run cancelled from any tab ends at once, and no engine takes it', async () => {
  const { db, connect } = database();
  const locks = testLocks();
  const gate = testGate();
  const [cancelled, next] = await journalGates(db, gate, 2);
  expect(await requestCancel(connect(), cancelled!, new Date())).toBe('cancelled');
  const runs = engine(connect(), locks, { catalog: gate.catalog });
  expect(await runs.service.take({ announce: true })).toEqual([next]);
  expect(await getRun(db, cancelled!)).toMatchObject({
    status: 'cancelled',
    statusReason: 'Cancelled before it started',
    engine: null,
  });
  await until(() => gate.waiting() === 1);
  gate.openOne();
  await until(() => runs.finished.size === 1);
});

it('runs a node that prefers WebGPU on WASM when there is no adapter, and says so', async () => {
  const { db, connect } = database();
  const flow = structuredClone(example);
  const train = flow.nodes.find((node) => node.id === 'train')!;
  train.params.backend = 'prefer-webgpu';
  const id = await journalTestRun(db, flow, { steps: 5 });
  const runs = engine(connect(), testLocks());
  expect(await runs.service.take({ announce: true })).toEqual([id]);
  await until(() => runs.finished.has(id));
  expect(runs.finished.get(id)).toBe('ok');
  const outcome = (await runNodes(db, id)).find((row) => row.node === 'train');
  expect(outcome?.logs).toMatch(/training on wasm/);
  expect(outcome?.logs).toMatch(/preferred webgpu, but this engine has no WebGPU adapter/);
});

function lock(runId: RunId): string {
  return `flowbench.run.${runId}`;
}

it('a run claimed here says what it runs on from the claim: its row is written twice, claimed and ended', async () => {
  const { db, connect } = database();
  const locks = testLocks();
  const gate = testGate();
  const [id] = await journalGates(db, gate, 1);
  const tab = connect();
  const seen = transactionsOf(tab);
  const rowWrites = () => writesAmong(seen).filter((stores) => stores.includes('runs')).length;
  const driver = engine(tab, locks, {
    catalog: gate.catalog,
    adapter,
    fingerprint: (choice) => Promise.resolve({ backend: choice } as never),
  });
  await driver.service.take({ announce: true });
  await until(() => gate.waiting() === 1);
  const running = await getRun(db, id!);
  expect(running?.engine).toMatchObject({ backend: 'webgpu', vendor: 'test' });
  expect(running?.fingerprint).toEqual({ backend: 'auto' });
  expect(rowWrites()).toBe(1);
  gate.openOne();
  await until(() => driver.finished.has(id!));
  expect(driver.finished.get(id!)).toBe('ok');
  expect(rowWrites()).toBe(2);
});
