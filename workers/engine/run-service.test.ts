import 'fake-indexeddb/auto';
import { afterEach, expect, it } from 'vitest';
import type { RunId, RunStatus } from '../../src/core/run/record';
import { engineInfo } from './ort-runtime';
import { runNodes } from '../../src/db/run-nodes';
import { cancelQueuedRun, getRun } from '../../src/db/runs';
import { FlowbenchDb } from '../../src/db/schema';
import { RunService } from './run-service';
import { journalTestRun, loadFlow, nodeRuntime, testDriverOptions } from './testing';

const example = loadFlow('src/examples/spirals-mlp.flow.json');
let db: FlowbenchDb;
let n = 0;
afterEach(async () => {
  db.close();
  await db.delete();
});

function service(maxActive = 2) {
  const info = engineInfo(null);
  return new RunService({
    ...testDriverOptions(db),
    engineInfo: () => Promise.resolve(info),
    runtimeFor: (choice) => nodeRuntime(info)(choice),
    onProgress: () => undefined,
    onLive: () => undefined,
    withLock: (_name, body) => body(),
    maxActive,
  });
}

it('leaves a run that requires WebGPU queued, with its reason, on an engine without an adapter', async () => {
  db = new FlowbenchDb(`service-${++n}`);
  const id = await journalTestRun(db, example, { steps: 5 }, { requires: ['webgpu'] });
  expect(await service().start(id)).toBe('queued');
  const run = await getRun(db, id);
  expect(run).toMatchObject({
    status: 'queued',
    statusReason: 'Waiting for an engine with webgpu',
  });
  expect(await cancelQueuedRun(db, id)).toBe(true);
  expect((await getRun(db, id))?.status).toBe('cancelled');
});

it('runs a node that prefers WebGPU on WASM when there is no adapter, and says so', async () => {
  db = new FlowbenchDb(`service-${++n}`);
  const flow = structuredClone(example);
  const train = flow.nodes.find((node) => node.id === 'train')!;
  train.params.backend = 'prefer-webgpu';
  const id = await journalTestRun(db, flow, { steps: 5 });
  expect(await service().start(id)).toBe('ok');
  const outcome = (await runNodes(db, id)).find((row) => row.node === 'train');
  expect(outcome?.logs).toMatch(/training on wasm/);
  expect(outcome?.logs).toMatch(/preferred webgpu, but this engine has no WebGPU adapter/);
});

it('drives at most maxActive runs at once; the rest wait queued', async () => {
  db = new FlowbenchDb(`service-${++n}`);
  const ids: RunId[] = [];
  for (let i = 0; i < 3; i++) ids.push(await journalTestRun(db, example, { steps: 100_000 }));
  const runs = service(2);
  const done: Promise<RunStatus>[] = ids.map((id) => runs.start(id));
  const statuses = async () => Promise.all(ids.map(async (id) => (await getRun(db, id))?.status));
  while ((await statuses()).filter((s) => s === 'running').length < 2)
    await new Promise((r) => setTimeout(r, 10));
  expect(await statuses()).toEqual(['running', 'running', 'queued']);
  runs.cancel(ids[0]!);
  while ((await getRun(db, ids[2]!))?.status !== 'running')
    await new Promise((r) => setTimeout(r, 10));
  expect((await getRun(db, ids[0]!))?.status).toBe('cancelled');
  runs.cancel(ids[1]!);
  runs.cancel(ids[2]!);
  expect(await Promise.all(done)).toEqual(['cancelled', 'cancelled', 'cancelled']);
});
