import { describe, expect, it } from 'vitest';
import { createCatalog } from '../catalog/catalog';
import { defineNodeKind } from '../catalog/kind';
import type { Dataset } from '../catalog/values';
import { FLOW_FORMAT, FLOW_FORMAT_2, type FlowDocument, type FlowEdge } from '../flow/document';
import { dataSplit } from '../nodes/data-split';
import { dataSynthetic } from '../nodes/data-synthetic';
import { modelMlp } from '../nodes/model-mlp';
import type { RunParams } from '../run/params';
import type { NodeOutcome, RunEvents } from './events';
import { executeFlow } from './executor';
import { inProcessProducers } from '../live/producer-host';
import type { TensorRuntime } from '../runtime/tensor-runtime';
import { FlowbenchError } from '../errors';

// --- tiny node kinds, enough to exercise the scheduler ---------------------

const source = defineNodeKind({
  kind: 't.source',
  title: 'Source',
  category: 'data',
  description: 'Emits its param.',
  params: { value: { type: 'number', default: 1, description: '' } },
  inputs: [],
  outputs: [{ name: 'out', type: 'number', description: '' }],
  execute(ctx) {
    ctx.emit('out', ctx.params.value);
    return Promise.resolve();
  },
});

const add = defineNodeKind({
  kind: 't.add',
  title: 'Add',
  category: 'metric',
  description: 'a + b',
  params: {},
  inputs: [
    { name: 'a', type: 'number', description: '' },
    { name: 'b', type: 'number', description: '' },
  ],
  outputs: [{ name: 'sum', type: 'number', description: '' }],
  execute(ctx) {
    ctx.emit('sum', (ctx.inputs.a as number) + (ctx.inputs.b as number));
    return Promise.resolve();
  },
});

/** Passes its input on; yields first, so siblings get a chance to run. */
const pass = defineNodeKind({
  kind: 't.pass',
  title: 'Pass',
  category: 'metric',
  description: 'in → out',
  params: {},
  inputs: [{ name: 'in', type: 'number', description: '' }],
  outputs: [{ name: 'out', type: 'number', description: '' }],
  async execute(ctx) {
    await Promise.resolve();
    ctx.log(`got ${String(ctx.inputs.in)}`);
    ctx.emit('out', ctx.inputs.in);
  },
});

const fail = defineNodeKind({
  kind: 't.fail',
  title: 'Fail',
  category: 'metric',
  description: 'Always throws.',
  params: {},
  inputs: [{ name: 'in', type: 'number', description: '' }],
  outputs: [{ name: 'out', type: 'number', description: '' }],
  execute() {
    return Promise.reject(new Error('boom: the node failed'));
  },
});

const twice = defineNodeKind({
  kind: 't.twice',
  title: 'Twice',
  category: 'metric',
  description: 'Emits twice on a non-streaming port.',
  params: {},
  inputs: [],
  outputs: [{ name: 'out', type: 'number', description: '' }],
  execute(ctx) {
    ctx.emit('out', 1);
    ctx.emit('out', 2);
    return Promise.resolve();
  },
});

const silent = defineNodeKind({
  kind: 't.silent',
  title: 'Silent',
  category: 'metric',
  description: 'Finishes without emitting.',
  params: {},
  inputs: [],
  outputs: [{ name: 'out', type: 'number', description: '' }],
  execute: () => Promise.resolve(),
});

const stream = defineNodeKind({
  kind: 't.stream',
  title: 'Stream',
  category: 'train',
  description: 'Emits 1..n on a streaming port.',
  params: { n: { type: 'int', default: 3, min: 1, max: 100, description: '' } },
  inputs: [],
  outputs: [{ name: 'loss', type: 'number', description: '', stream: true }],
  async execute(ctx) {
    for (let i = 1; i <= ctx.params.n; i++) {
      ctx.emit('loss', i);
      await ctx.checkpoint();
    }
  },
});

/** Loops on `checkpoint()` until the run is cancelled, reporting each round as progress. */
const loop = defineNodeKind({
  kind: 't.loop',
  title: 'Loop',
  category: 'train',
  description: 'Runs until cancelled.',
  params: {},
  inputs: [{ name: 'in', type: 'number', description: '' }],
  outputs: [{ name: 'out', type: 'number', description: '' }],
  async execute(ctx) {
    for (let i = 0; ; i++) {
      ctx.progress(i, 0);
      await ctx.checkpoint();
    }
  },
});

const rows = defineNodeKind({
  kind: 't.rows',
  title: 'Rows',
  category: 'eval',
  description: 'Counts dataset rows.',
  params: {},
  inputs: [{ name: 'dataset', type: 'dataset', description: '' }],
  outputs: [{ name: 'count', type: 'number', description: '' }],
  execute(ctx) {
    ctx.emit('count', (ctx.inputs.dataset as Dataset).count);
    return Promise.resolve();
  },
});

const hidden = defineNodeKind({
  kind: 't.hidden',
  title: 'Hidden units',
  category: 'eval',
  description: 'Reads a model architecture.',
  params: {},
  inputs: [{ name: 'model', type: 'model', description: '' }],
  outputs: [{ name: 'units', type: 'number', description: '' }],
  execute(ctx) {
    const model = ctx.inputs.model as { hidden: number[] };
    ctx.emit(
      'units',
      model.hidden.reduce((a, b) => a + b, 0),
    );
    return Promise.resolve();
  },
});

const catalog = createCatalog([
  source,
  add,
  pass,
  fail,
  twice,
  silent,
  stream,
  loop,
  rows,
  hidden,
  dataSynthetic,
  dataSplit,
  modelMlp,
]);

// --- harness ---------------------------------------------------------------

const runtime: TensorRuntime = {
  info: { backend: 'wasm', adapter: null },
  createSession: () => Promise.reject(new Error('the executor tests create no sessions')),
};

type NodeSpec = [id: string, kind: string, params?: FlowDocument['nodes'][number]['params']];

function flowOf(
  nodes: NodeSpec[],
  edges: [string, string][],
  extra: Partial<FlowDocument> = {},
): FlowDocument {
  return {
    format: FLOW_FORMAT,
    name: 'test',
    inputs: [],
    outputs: [],
    nodes: nodes.map(([id, kind, params = {}]) => ({ id, kind, params, position: { x: 0, y: 0 } })),
    edges: edges.map(([from, to]): FlowEdge => ({ from, to })),
    ...extra,
  };
}

interface Recorded {
  started: string[];
  finished: Map<string, NodeOutcome>;
  emitted: { node: string; port: string; value: unknown; stream: boolean }[];
  logs: string[];
}

async function run(
  flow: FlowDocument,
  opts: {
    inputs?: RunParams;
    controller?: AbortController;
    onProgress?: (node: string, done: number) => void;
  } = {},
) {
  const recorded: Recorded = { started: [], finished: new Map(), emitted: [], logs: [] };
  let clock = 0;
  const events: RunEvents = {
    nodeQueued: () => {},
    nodeStarted: (node) => recorded.started.push(node),
    nodeFinished: (node, outcome) => {
      if (recorded.finished.has(node)) throw new Error(`node ${node} finished twice`);
      recorded.finished.set(node, outcome);
    },
    emitted: (node, port, value, isStream) =>
      recorded.emitted.push({ node, port, value, stream: isStream }),
    log: (node, message) => recorded.logs.push(`${node}: ${message}`),
    progress: (node, done) => opts.onProgress?.(node, done),
    interval: () => {},
    artifact: () => {},
  };
  const result = await executeFlow({
    flow,
    catalog,
    inputs: opts.inputs ?? {},
    runtime,
    producers: inProcessProducers,
    events,
    signal: (opts.controller ?? new AbortController()).signal,
    // A fake clock that moves on every read, so `checkpoint` yields without real time passing.
    now: () => (clock += 25),
    yieldNow: () => new Promise<void>((resolve) => setImmediate(resolve)),
  });
  const status = (node: string) => recorded.finished.get(node)?.status;
  return { result, recorded, status };
}

// --- tests -----------------------------------------------------------------

describe('executeFlow', () => {
  it('fires a node once its inputs are present, in edge order', async () => {
    const flow = flowOf(
      [
        ['sum', 't.add'],
        ['b', 't.pass'],
        ['a', 't.source', { value: 2 }],
        ['c', 't.source', { value: 40 }],
      ],
      [
        ['a.out', 'b.in'],
        ['b.out', 'sum.a'],
        ['c.out', 'sum.b'],
      ],
      { outputs: ['sum'] },
    );
    const { result, recorded } = await run(flow);
    const at = (id: string) => recorded.started.indexOf(id);
    expect(recorded.started).toHaveLength(4);
    expect(at('a')).toBeLessThan(at('b'));
    expect(at('b')).toBeLessThan(at('sum'));
    expect(at('c')).toBeLessThan(at('sum'));
    expect(result).toEqual({ status: 'ok', outputs: { sum: 42 }, failed: [] });
  });

  it('runs independent branches and all their nodes end ok', async () => {
    const flow = flowOf(
      [
        ['a', 't.source', { value: 1 }],
        ['a2', 't.pass'],
        ['b', 't.source', { value: 2 }],
        ['b2', 't.pass'],
      ],
      [
        ['a.out', 'a2.in'],
        ['b.out', 'b2.in'],
      ],
      { outputs: ['a2.out', 'b2.out'] },
    );
    const { result, recorded, status } = await run(flow);
    expect(result.outputs).toEqual({ 'a2.out': 1, 'b2.out': 2 });
    for (const id of ['a', 'a2', 'b', 'b2']) expect(status(id)).toBe('ok');
    expect(recorded.logs.sort()).toEqual(['a2: got 1', 'b2: got 2']);
  });

  it('skips what is downstream of a failed node while an independent branch ends ok', async () => {
    const flow = flowOf(
      [
        ['src', 't.source'],
        ['bad', 't.fail'],
        ['after', 't.pass'],
        ['after2', 't.pass'],
        ['other', 't.source', { value: 7 }],
        ['other2', 't.pass'],
      ],
      [
        ['src.out', 'bad.in'],
        ['bad.out', 'after.in'],
        ['after.out', 'after2.in'],
        ['other.out', 'other2.in'],
      ],
      { outputs: ['after2.out', 'other2.out'] },
    );
    const { result, recorded, status } = await run(flow);
    expect(result.status).toBe('error');
    expect(result.failed).toEqual(['bad']);
    expect(recorded.finished.get('bad')).toMatchObject({
      status: 'error',
      error: 'boom: the node failed',
    });
    expect(recorded.finished.get('after')).toEqual({
      status: 'skipped',
      durationMs: null,
      error: "skipped: upstream node 'bad' did not finish",
    });
    expect(recorded.finished.get('after2')).toEqual({
      status: 'skipped',
      durationMs: null,
      error: "skipped: upstream node 'after' did not finish",
    });
    expect(recorded.started).not.toContain('after');
    expect(status('other2')).toBe('ok');
    expect(result.outputs).toEqual({ 'other2.out': 7 });
  });

  it('skips every node of a chain of 20,000 below a failed node, naming the one above', async () => {
    const chain: NodeSpec[] = [
      ['src', 't.source'],
      ['bad', 't.fail'],
    ];
    const edges: [string, string][] = [['src.out', 'bad.in']];
    for (let i = 0; i < 20_000; i++) {
      chain.push([`p${i}`, 't.pass']);
      edges.push([`${i === 0 ? 'bad' : `p${i - 1}`}.out`, `p${i}.in`]);
    }
    const { result, recorded, status } = await run(flowOf(chain, edges));
    expect(result).toMatchObject({ status: 'error', failed: ['bad'] });
    expect(recorded.finished.size).toBe(20_002);
    expect(recorded.finished.get('p19999')).toEqual({
      status: 'skipped',
      durationMs: null,
      error: "skipped: upstream node 'p19998' did not finish",
    });
    expect(status('p0')).toBe('skipped');
  });

  it('fails a node that emits twice on a non-streaming port', async () => {
    const flow = flowOf(
      [
        ['twice', 't.twice'],
        ['next', 't.pass'],
      ],
      [['twice.out', 'next.in']],
    );
    const { result, recorded, status } = await run(flow);
    expect(result.status).toBe('error');
    expect(recorded.finished.get('twice')).toMatchObject({
      status: 'error',
      error: "output 'out' is not a streaming port and may emit only once",
    });
    expect(status('next')).toBe('skipped');
  });

  it('fails the downstream node when an upstream node finishes without emitting', async () => {
    const flow = flowOf(
      [
        ['quiet', 't.silent'],
        ['next', 't.pass'],
        ['last', 't.pass'],
      ],
      [
        ['quiet.out', 'next.in'],
        ['next.out', 'last.in'],
      ],
    );
    const { result, recorded, status } = await run(flow);
    expect(status('quiet')).toBe('ok');
    expect(recorded.finished.get('next')).toMatchObject({
      status: 'error',
      error: "input 'in' received nothing: quiet.out finished without emitting",
    });
    expect(status('last')).toBe('skipped');
    expect(result).toMatchObject({ status: 'error', failed: ['next'] });
  });

  it('reports every emission of a streaming port and hands on the last one', async () => {
    const flow = flowOf(
      [
        ['train', 't.stream', { n: 4 }],
        ['next', 't.pass'],
      ],
      [['train.loss', 'next.in']],
      { outputs: ['loss', 'next.out'] },
    );
    const { result, recorded } = await run(flow);
    expect(recorded.emitted.filter((e) => e.node === 'train')).toEqual(
      [1, 2, 3, 4].map((value) => ({ node: 'train', port: 'loss', value, stream: true })),
    );
    expect(recorded.emitted.filter((e) => e.node === 'next')).toEqual([
      { node: 'next', port: 'out', value: 4, stream: false },
    ]);
    expect(result).toEqual({ status: 'ok', outputs: { loss: 4, 'next.out': 4 }, failed: [] });
  });

  it('cancels: the looping node and the nodes never started end cancelled', async () => {
    const controller = new AbortController();
    const flow = flowOf(
      [
        ['src', 't.source'],
        ['spin', 't.loop'],
        ['after', 't.pass'],
        ['after2', 't.pass'],
      ],
      [
        ['src.out', 'spin.in'],
        ['spin.out', 'after.in'],
        ['after.out', 'after2.in'],
      ],
      { outputs: ['src.out', 'after2.out'] },
    );
    let rounds = 0;
    const { result, recorded, status } = await run(flow, {
      controller,
      onProgress: (node, done) => {
        rounds = done;
        if (node === 'spin' && done === 5) controller.abort();
      },
    });
    expect(rounds).toBeGreaterThanOrEqual(5);
    expect(result.status).toBe('cancelled');
    expect(status('src')).toBe('ok');
    expect(recorded.finished.get('spin')).toMatchObject({
      status: 'cancelled',
      error: 'cancelled while running',
    });
    for (const id of ['after', 'after2'])
      expect(recorded.finished.get(id)).toEqual({
        status: 'cancelled',
        durationMs: null,
        error: 'cancelled before it started',
      });
    expect(recorded.started).toEqual(['src', 'spin']);
    expect(result.failed).toEqual([]);
    expect(result.outputs).toEqual({ 'src.out': 1 });
  });

  it('runs nothing when the run is cancelled before it starts', async () => {
    const controller = new AbortController();
    controller.abort();
    const flow = flowOf([['src', 't.source']], []);
    const { result, recorded, status } = await run(flow, { controller });
    expect(result.status).toBe('cancelled');
    expect(recorded.started).toEqual([]);
    expect(status('src')).toBe('cancelled');
  });

  it('runs the real data and model kinds with flow inputs substituted', async () => {
    const flow = flowOf(
      [
        ['data', 'data.synthetic', { n: 100, seed: { $input: 'seed' } }],
        ['split', 'data.split', { test_fraction: 0.2, seed: { $input: 'seed' } }],
        ['trainRows', 't.rows'],
        ['testRows', 't.rows'],
        ['model', 'model.mlp', { hidden: 8, layers: 3 }],
        ['units', 't.hidden'],
      ],
      [
        ['data.dataset', 'split.dataset'],
        ['split.train', 'trainRows.dataset'],
        ['split.test', 'testRows.dataset'],
        ['model.model', 'units.model'],
      ],
      {
        inputs: [{ name: 'seed', type: 'int', default: 0, min: 0 }],
        outputs: ['trainRows.count', 'testRows.count', 'units'],
      },
    );
    const { result } = await run(flow, { inputs: { seed: 3 } });
    expect(result).toEqual({
      status: 'ok',
      outputs: { 'trainRows.count': 80, 'testRows.count': 20, units: 24 },
      failed: [],
    });
  });

  it('refuses an invalid flow as invalid-flow, listing its findings', async () => {
    const flow = flowOf(
      [
        ['a', 't.source', { value: 'x' }],
        ['b', 't.pass'],
        ['c', 't.nope'],
      ],
      [],
    );
    const started: string[] = [];
    const error = await executeFlow({
      flow,
      catalog,
      inputs: {},
      runtime,
      producers: inProcessProducers,
      events: {
        nodeQueued: () => {},
        nodeStarted: (node) => started.push(node),
        nodeFinished: () => {},
        emitted: () => {},
        log: () => {},
        progress: () => {},
        interval: () => {},
        artifact: () => {},
      },
      signal: new AbortController().signal,
      now: () => 0,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'invalid-flow' });
    // Each finding once, by its path in the document.
    expect((error as FlowbenchError<'invalid-flow'>).data.issues.map((i) => i.path)).toEqual([
      'nodes[0].params.value',
      'nodes[2].kind',
      'nodes[1]',
    ]);
    expect(started).toEqual([]);
  });

  it('refuses a flow input value that does not fit the param it fills', async () => {
    const flow = flowOf([['data', 'data.synthetic', { n: { $input: 'n' } }]], [], {
      inputs: [{ name: 'n', type: 'int', default: 100 }],
    });
    const error = await run(flow, { inputs: { n: 3 } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'invalid-flow' });
    expect((error as FlowbenchError<'invalid-flow'>).data.issues).toEqual([
      {
        path: 'nodes[0].params.n',
        message:
          "node 'data' param 'n' (from input 'n'): expected an integer from 10 to 1000000, got 3",
      },
    ]);
  });

  it('refuses a cyclic flow before running anything', async () => {
    const flow = flowOf(
      [
        ['a', 't.add'],
        ['b', 't.pass'],
        ['c', 't.source'],
      ],
      [
        ['a.sum', 'b.in'],
        ['b.out', 'a.a'],
        ['c.out', 'a.b'],
      ],
    );
    await expect(run(flow)).rejects.toThrow('the flow has a cycle: a → b → a');
  });
});

describe('a bypassed node', () => {
  const bypassing = (flow: FlowDocument, ...ids: string[]): FlowDocument => ({
    ...flow,
    format: FLOW_FORMAT_2,
    nodes: flow.nodes.map((n) => (ids.includes(n.id) ? { ...n, bypass: true } : n)),
  });

  it('does not run and passes its input of the same type on to what follows', async () => {
    const flow = bypassing(
      flowOf(
        [
          ['src', 't.source', { value: 5 }],
          ['off', 't.fail'],
          ['after', 't.pass'],
        ],
        [
          ['src.out', 'off.in'],
          ['off.out', 'after.in'],
        ],
        { outputs: ['after.out'] },
      ),
      'off',
    );
    const { result, recorded } = await run(flow);
    expect(recorded.started).not.toContain('off');
    expect(recorded.finished.get('off')).toEqual({
      status: 'skipped',
      durationMs: null,
      error: 'bypassed',
    });
    expect(recorded.logs).toContain('after: got 5');
    expect(result).toMatchObject({ status: 'ok', outputs: { 'after.out': 5 }, failed: [] });
  });

  it('skips what needs an output it cannot pass on, naming the bypassed node', async () => {
    const flow = bypassing(
      flowOf(
        [
          ['data', 'data.synthetic', { n: 20 }],
          ['count', 't.rows'],
          ['after', 't.pass'],
          ['last', 't.pass'],
          ['other', 't.source', { value: 3 }],
        ],
        [
          ['data.dataset', 'count.dataset'],
          ['count.count', 'after.in'],
          ['after.out', 'last.in'],
        ],
        { outputs: ['other.out'] },
      ),
      'count',
    );
    const { result, recorded, status } = await run(flow);
    expect(status('count')).toBe('skipped');
    expect(recorded.finished.get('after')).toEqual({
      status: 'skipped',
      durationMs: null,
      error: "skipped: node 'count' is bypassed and has no number input to pass on as 'count'",
    });
    expect(recorded.finished.get('last')?.error).toBe(
      "skipped: upstream node 'after' did not finish",
    );
    expect(recorded.started).not.toContain('after');
    // Nothing failed: bypassing is a choice, the run ends ok with what it could compute.
    expect(result).toMatchObject({ status: 'ok', outputs: { 'other.out': 3 }, failed: [] });
  });
});
