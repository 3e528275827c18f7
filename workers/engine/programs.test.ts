import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { GPU_FALLBACK_BUDGET, WASM_HEAP_BUDGET } from '../../src/core/programs';
import { metricSeries } from '../../src/db/metrics';
import { readRunRecord } from '../../src/db/runs';
import { FlowbenchDb } from '../../src/db/schema';
import type { PoolReport } from './pool-events';
import { EnginePools, engineProgramHost } from './programs';
import { driveRun } from './run-driver';
import { journalTestRun, loadFlow, nodeRuntime, testDriverOptions } from './testing';

const example = loadFlow('src/examples/spirals-mlp.flow.json');

describe('EnginePools', () => {
  const adapter = {
    vendor: 'google',
    architecture: 'swiftshader',
    isFallbackAdapter: true,
    limits: { maxBufferSize: 2 ** 30, maxStorageBufferBindingSize: 2 ** 27 },
  };

  it('sizes WebGPU from the adapter limits and WASM from a heap budget, unless set', () => {
    let found: typeof adapter | null = null;
    const pools = new EnginePools(() => found);
    expect(pools.budget('webgpu')).toEqual({
      backend: 'webgpu',
      bytes: GPU_FALLBACK_BUDGET,
      source: 'default',
    });
    found = { ...adapter, limits: { ...adapter.limits, maxBufferSize: 4e9 } };
    expect(pools.pool('webgpu').budget).toBe(4e9);
    expect(pools.pool('wasm').budget).toBe(WASM_HEAP_BUDGET);
    pools.setBudget('wasm', 256e6);
    expect(pools.budgets()).toEqual([
      { backend: 'webgpu', bytes: 4e9, source: 'default' },
      { backend: 'wasm', bytes: 256e6, source: 'setting' },
    ]);
    expect(() => pools.setBudget('wasm', -1)).toThrow(/positive number of bytes/);
  });

  it('changes a budget only while its pool is idle, and keeps one pool per backend', () => {
    const pools = new EnginePools(() => adapter);
    const busy = pools.pool('wasm');
    expect(pools.pool('wasm')).toBe(busy);
    const hold = busy.tryHold({ name: 'r' }, 'state', 10, 'train');
    pools.setBudget('wasm', 100);
    // Never shrunk under a running program: the same pool until it is idle.
    expect(pools.pool('wasm')).toBe(busy);
    busy.release(hold!);
    expect(pools.pool('wasm').budget).toBe(100);
    expect(pools.pool('webgpu')).not.toBe(pools.pool('wasm'));
  });
});

describe('a run through the engine pools (real onnxruntime, WASM)', () => {
  let db: FlowbenchDb;
  let n = 0;
  afterEach(async () => {
    db.close();
    await db.delete();
  });

  it('reports the pool after each tick and a final report per node; reports steps done', async () => {
    db = new FlowbenchDb(`programs-${++n}`);
    const pools = new EnginePools(() => null);
    const id = await journalTestRun(db, example, { steps: 30 });
    const reports: PoolReport[] = [];
    const progress: [string, number, number, number | undefined][] = [];
    const status = await driveRun(id, new AbortController().signal, {
      ...testDriverOptions(db),
      onProgress: (node, done, total, perSecond) => progress.push([node, done, total, perSecond]),
      programHost: (runtime, runId) =>
        engineProgramHost(runtime, pools, {
          onTick: (node, backend, { mode, tick, pool, requests }, final) =>
            reports.push({ runId, node, backend, mode, tick, final, pool, requests }),
        }),
    });
    expect(status).toBe('ok');
    const train = reports.filter((r) => r.node === 'train');
    expect(train).toHaveLength(30 + 1);
    expect(train.filter((r) => r.final)).toHaveLength(1);
    const during = train[10]!;
    expect(during).toMatchObject({ backend: 'wasm', mode: 'interleaved', final: false });
    expect(during.pool.budget).toBe(WASM_HEAP_BUDGET);
    expect(during.pool.residentModels.map((m) => m.name)).toEqual(['train train step']);
    // Weights and momentum reserved for the loop's whole life.
    expect(during.pool.reserved).toBeGreaterThan(0);
    expect(during.requests[0]).toMatchObject({
      request: 'train',
      state: 'running',
      step: 'train',
      units: 30,
    });
    expect(reports.at(-1)).toMatchObject({ node: 'eval', final: true });
    const trained = progress.filter(([node]) => node === 'train');
    expect(trained.at(-1)?.slice(0, 3)).toEqual(['train', 30, 30]);
    // Every report while the loop runs carries its own rate, so even the first can show steps/s.
    for (const [, done, , perSecond] of trained.slice(0, -1))
      expect(perSecond, `rate at step ${done}`).toBeGreaterThan(0);
    // Nothing stays held once the run ended.
    expect(pools.pool('wasm').used).toBe(0);
    const record = (await readRunRecord(db, id))!;
    const logs = record.nodes.find((node) => node.node === 'train')?.logs ?? '';
    expect(logs).toContain('training on wasm with momentum: 30 steps of 64 rows');
    expect(logs).toMatch(/30 steps at [\d.]+ steps\/s/);
    expect(logs).toContain('passed from step to step without a copy on wasm (29 of 30 steps)');
  });

  it('fails the training node up front when its step can never fit the pool, with the numbers', async () => {
    db = new FlowbenchDb(`programs-${++n}`);
    const pools = new EnginePools(() => null);
    pools.setBudget('wasm', 20_000);
    const id = await journalTestRun(db, example, { steps: 30 });
    const status = await driveRun(id, new AbortController().signal, {
      ...testDriverOptions(db),
      programHost: (runtime) => engineProgramHost(runtime, pools),
    });
    expect(status).toBe('error');
    const record = (await readRunRecord(db, id))!;
    const train = record.nodes.find((node) => node.node === 'train');
    expect(train?.status).toBe('error');
    expect(train?.error).toMatch(
      /^train: step needs [\d.]+ KB peak \+ [\d.]+ KB resident \(weights, optimizer state\)( \+ [\d.]+ K?B of resident models)? = [\d.]+ KB, pool is 20 KB$/,
    );
    expect(await metricSeries(db, id, 'train.loss')).toEqual([]);
    expect(pools.pool('wasm').used).toBe(0);
  });
});

describe('models shared across the nodes of a run (real onnxruntime, WASM)', () => {
  it('two evaluations of one trained model use one resident inference model, let go when the run ends', async () => {
    const db = new FlowbenchDb(`programs-shared-${crypto.randomUUID()}`);
    onTestFinished(async () => {
      db.close();
      await db.delete();
    });
    const flow = { ...structuredClone(example), outputs: ['eval.accuracy', 'eval2.accuracy'] };
    const evalNode = flow.nodes.find((node) => node.id === 'eval')!;
    flow.nodes.push({ ...structuredClone(evalNode), id: 'eval2', position: { x: 900, y: 300 } });
    flow.edges.push(
      { from: 'train.model', to: 'eval2.model' },
      { from: 'split.test', to: 'eval2.dataset' },
    );
    const id = await journalTestRun(db, flow, { steps: 10 });
    const pools = new EnginePools(() => null);
    let created = 0;
    let released = 0;
    const plain = nodeRuntime();
    const reports: PoolReport[] = [];
    const status = await driveRun(id, new AbortController().signal, {
      ...testDriverOptions(db),
      runtimeFor: async (choice) => {
        const runtime = await plain(choice);
        const create = runtime.createSession.bind(runtime);
        runtime.createSession = async (...args) => {
          created++;
          const session = await create(...args);
          const release = session.release.bind(session);
          session.release = () => {
            released++;
            return release();
          };
          return session;
        };
        return runtime;
      },
      programHost: (runtime, runId) =>
        engineProgramHost(runtime, pools, {
          onTick: (node, backend, { mode, tick, pool, requests }, final) =>
            reports.push({ runId, node, backend, mode, tick, final, pool, requests }),
        }),
    });
    const record = (await readRunRecord(db, id))!;
    expect(status, record.run.statusReason).toBe('ok');
    // The train step, and one inference model for both evaluations.
    expect(created).toBe(2);
    expect(released).toBe(2);
    // Whichever evaluation loaded it, the other found it resident: one inference model in all.
    const inference = new Set(
      reports
        .flatMap((r) => r.pool.residentModels.map((m) => m.name))
        .filter((m) => m.includes('inference')),
    );
    expect(inference.size).toBe(1);
    expect(
      record.nodes.filter((node) => node.node.startsWith('eval')).map((node) => node.status),
    ).toEqual(['ok', 'ok']);
    expect(pools.pool('wasm').used).toBe(0);
  });
});
