import { describe, expect, it } from 'vitest';
import { memoryCacheStore, type NodeCacheStore } from '../cache';
import { createCatalog } from '../catalog/catalog';
import { defineNodeKind, type NodeKind } from '../catalog/kind';
import { FLOW_FORMAT, type FlowDocument } from '../flow/document';
import { inProcessProducers } from '../live/producer-host';
import type { TensorRuntime } from '../runtime/tensor-runtime';
import type { NodeOutcome } from './events';
import { executeFlow } from './executor';

/** How often each kind's body ran, across the runs of one test. */
let ran: Record<string, number> = {};
const count = (kind: string) => (ran[kind] = (ran[kind] ?? 0) + 1);

const source = (version = 1) =>
  defineNodeKind({
    kind: 't.source',
    title: 'Source',
    category: 'data',
    description: 'Emits a dataset-like value from its param; keeps an artifact.',
    version,
    params: { n: { type: 'int', default: 3, description: '' } },
    inputs: [],
    outputs: [{ name: 'out', type: 'dataset', description: '' }],
    execute(ctx) {
      count('source');
      ctx.artifact('rows', new Uint8Array([ctx.params.n]), 'application/octet-stream');
      ctx.emit('out', { kind: 'dataset', values: new Float32Array(ctx.params.n).fill(0.5) });
      return Promise.resolve();
    },
  });

const clock = defineNodeKind({
  kind: 't.clock',
  title: 'Clock',
  category: 'data',
  description: 'Reads the wall clock: never cached.',
  cache: 'never',
  params: {},
  inputs: [],
  outputs: [{ name: 'out', type: 'dataset', description: '' }],
  execute(ctx) {
    count('clock');
    ctx.emit('out', { kind: 'dataset', values: new Float32Array([1]) });
    return Promise.resolve();
  },
});

const total = defineNodeKind({
  kind: 't.total',
  title: 'Total',
  category: 'eval',
  description: 'Sums its input, times its scale.',
  params: { scale: { type: 'number', default: 1, description: '' } },
  inputs: [{ name: 'in', type: 'dataset', description: '' }],
  outputs: [{ name: 'sum', type: 'number', description: '' }],
  execute(ctx) {
    count('total');
    const { values } = ctx.inputs.in as { values: Float32Array };
    ctx.emit('sum', values.reduce((a, b) => a + b, 0) * ctx.params.scale);
    return Promise.resolve();
  },
});

const runtime: TensorRuntime = {
  info: { backend: 'wasm', adapter: null },
  createSession: () => Promise.reject(new Error('no sessions here')),
};

function flowOf(upstream: 't.source' | 't.clock', params: { n?: number; scale?: number } = {}) {
  const doc: FlowDocument = {
    format: FLOW_FORMAT,
    name: 'cached',
    inputs: [],
    outputs: ['total'],
    nodes: [
      {
        id: 'up',
        kind: upstream,
        params: params.n ? { n: params.n } : {},
        position: { x: 0, y: 0 },
      },
      {
        id: 'sum',
        kind: 't.total',
        params: { scale: params.scale ?? 1 },
        position: { x: 0, y: 0 },
      },
    ],
    edges: [{ from: 'up.out', to: 'sum.in' }],
  };
  return { ...doc, outputs: ['sum.sum'] };
}

async function run(
  flow: FlowDocument,
  store: NodeCacheStore,
  runId: string,
  opts: { kinds?: NodeKind[]; fresh?: string[]; runTo?: string } = {},
) {
  const finished = new Map<string, NodeOutcome>();
  const logs: string[] = [];
  const artifacts: string[] = [];
  const result = await executeFlow({
    flow,
    catalog: createCatalog(opts.kinds ?? [source(), clock, total]),
    inputs: {},
    runtime,
    producers: inProcessProducers,
    events: {
      nodeQueued: () => {},
      nodeStarted: () => {},
      nodeFinished: (node, outcome) => finished.set(node, outcome),
      emitted: () => {},
      log: (node, message) => logs.push(`${node}: ${message}`),
      progress: () => {},
      interval: () => {},
      artifact: (node, name) => artifacts.push(`${node}/${name}`),
    },
    signal: new AbortController().signal,
    now: () => 0,
    cache: { store, runId, ...(opts.fresh && { fresh: new Set(opts.fresh) }) },
    ...(opts.runTo !== undefined && { runTo: opts.runTo }),
  });
  return { result, finished, logs, artifacts, status: (n: string) => finished.get(n)?.status };
}

describe('the node-output cache in a run', () => {
  it('passes on every report of a node it may store, its progress rate included', async () => {
    const steady = defineNodeKind({
      kind: 't.steady',
      title: 'Steady',
      category: 'train',
      description: 'Reports its progress with its own rate.',
      params: {},
      inputs: [],
      outputs: [{ name: 'out', type: 'number', description: '' }],
      execute(ctx) {
        ctx.progress(1, 2, 40);
        ctx.emit('out', 1);
        return Promise.resolve();
      },
    });
    const reports: [string, number, number, number?][] = [];
    await executeFlow({
      flow: {
        format: FLOW_FORMAT,
        name: 'steady',
        inputs: [],
        outputs: [],
        nodes: [{ id: 'fit', kind: 't.steady', params: {}, position: { x: 0, y: 0 } }],
        edges: [],
      },
      catalog: createCatalog([steady]),
      inputs: {},
      runtime,
      producers: inProcessProducers,
      events: {
        nodeQueued: () => {},
        nodeStarted: () => {},
        nodeFinished: () => {},
        emitted: () => {},
        log: () => {},
        progress: (...report) => reports.push(report),
        interval: () => {},
        artifact: () => {},
      },
      signal: new AbortController().signal,
      now: () => 0,
      cache: { store: memoryCacheStore(), runId: 'run-1' },
    });
    expect(reports).toEqual([['fit', 1, 2, 40]]);
  });

  it('stands a stored node in for running it, naming the run that computed it', async () => {
    ran = {};
    const store = memoryCacheStore();
    const first = await run(flowOf('t.source'), store, 'run-1');
    expect(first.status('up')).toBe('ok');
    const second = await run(flowOf('t.source'), store, 'run-2');
    expect(second.status('up')).toBe('cached');
    expect(second.finished.get('up')?.cachedFrom).toEqual({ runId: 'run-1', node: 'up' });
    expect(second.status('sum')).toBe('cached');
    expect(ran).toEqual({ source: 1, total: 1 });
    expect(second.result.outputs).toEqual(first.result.outputs);
    // What the node kept is recorded in the run that used the cache, too.
    expect(second.artifacts).toEqual(['up/rows']);
  });

  it('runs only what changed: a param below leaves what is above cached', async () => {
    ran = {};
    const store = memoryCacheStore();
    await run(flowOf('t.source'), store, 'run-1');
    const second = await run(flowOf('t.source', { scale: 2 }), store, 'run-2');
    expect([second.status('up'), second.status('sum')]).toEqual(['cached', 'ok']);
    expect(second.result.outputs).toEqual({ 'sum.sum': 3 });
    expect(ran).toEqual({ source: 1, total: 2 });
  });

  it('runs a node never cached and everything below it every time', async () => {
    ran = {};
    const store = memoryCacheStore();
    await run(flowOf('t.clock'), store, 'run-1');
    const second = await run(flowOf('t.clock'), store, 'run-2');
    expect([second.status('up'), second.status('sum')]).toEqual(['ok', 'ok']);
    expect(ran).toEqual({ clock: 2, total: 2 });
    expect(store.entries.size).toBe(0);
  });

  it('does not stand old outputs in once the kind bumps its version', async () => {
    ran = {};
    const store = memoryCacheStore();
    await run(flowOf('t.source'), store, 'run-1');
    const second = await run(flowOf('t.source'), store, 'run-2', { kinds: [source(2), total] });
    expect(second.status('up')).toBe('ok');
    // Its output is the same value, so what is below it still finds its entry.
    expect(second.status('sum')).toBe('cached');
  });

  it('recomputes a node asked to be fresh and everything below it, and stores what it made', async () => {
    ran = {};
    const store = memoryCacheStore();
    await run(flowOf('t.source'), store, 'run-1');
    const second = await run(flowOf('t.source'), store, 'run-2', { fresh: ['up'] });
    expect([second.status('up'), second.status('sum')]).toEqual(['ok', 'ok']);
    expect(ran).toEqual({ source: 2, total: 2 });
  });

  it('recomputes a node whose cache param is off, and looks up what is below it', async () => {
    ran = {};
    const store = memoryCacheStore();
    await run(flowOf('t.source'), store, 'run-1');
    const flow = flowOf('t.source');
    flow.nodes[0]!.params.cache = 'off';
    const second = await run(flow, store, 'run-2');
    expect([second.status('up'), second.status('sum')]).toEqual(['ok', 'cached']);
  });

  it('drops a damaged entry, runs the node and says so in its logs', async () => {
    ran = {};
    const store = memoryCacheStore();
    await run(flowOf('t.source'), store, 'run-1');
    for (const [key, entry] of store.entries) {
      const bytes = entry.outputs[0]!.bytes.slice();
      bytes[bytes.length - 1]! ^= 0xff;
      store.entries.set(key, { ...entry, outputs: [{ ...entry.outputs[0]!, bytes }] });
    }
    const second = await run(flowOf('t.source'), store, 'run-2');
    expect(second.status('up')).toBe('ok');
    expect(second.logs.join('\n')).toMatch(/up: warning: the cached outputs were damaged/);
    expect(second.result.outputs).toEqual({ 'sum.sum': 1.5 });
  });

  it('runs to a node: only it and what is above it run; what is below it is skipped, saying why', async () => {
    ran = {};
    const store = memoryCacheStore();
    const partial = await run(flowOf('t.source'), store, 'run-1', { runTo: 'up' });
    expect([partial.status('up'), partial.status('sum')]).toEqual(['ok', 'skipped']);
    expect(partial.finished.get('sum')?.error).toBe("skipped: not needed to run to 'up'");
    expect(partial.result.status).toBe('ok');
    // The whole flow after it: what ran to here stands in.
    const whole = await run(flowOf('t.source'), store, 'run-2');
    expect([whole.status('up'), whole.status('sum')]).toEqual(['cached', 'ok']);
  });
});
