/**
 * The context a node body receives: what it reports lands under the node's
 * own id, a body that throws before returning a promise fails like one that
 * rejects, and `checkpoint` stops a cancelled run. The executor builds one
 * context per node, so these hold for every node of a run, not just the first.
 */
import { describe, expect, it } from 'vitest';
import { createCatalog } from '../catalog/catalog';
import { defineNodeKind } from '../catalog/kind';
import { FLOW_FORMAT, type FlowDocument } from '../flow/document';
import type { NodeOutcome, RunEvents } from './events';
import { executeFlow } from './executor';
import { inProcessProducers } from '../live/producer-host';
import type { TensorRuntime } from '../runtime/tensor-runtime';

const out = [{ name: 'out', type: 'number', description: '' }] as const;

const reporter = defineNodeKind({
  kind: 'c.reporter',
  title: 'Reporter',
  category: 'metric',
  description: 'Uses every reporting method of its context once.',
  params: {},
  inputs: [],
  outputs: out,
  execute(ctx) {
    ctx.log(`hello from ${ctx.node}`);
    ctx.progress(1, 2);
    ctx.interval('data_wait', 1, 2);
    ctx.artifact('weights', Uint8Array.of(7), 'application/octet-stream');
    ctx.emit('out', ctx.node.length);
    return Promise.resolve();
  },
});

const thrower = defineNodeKind({
  kind: 'c.thrower',
  title: 'Thrower',
  category: 'metric',
  description: 'Throws before it returns a promise.',
  params: {},
  inputs: [],
  outputs: out,
  execute() {
    throw new Error('bad wiring in the body');
  },
});

const sink = defineNodeKind({
  kind: 'c.sink',
  title: 'Sink',
  category: 'metric',
  description: 'Reads one number.',
  params: {},
  inputs: [{ name: 'in', type: 'number', description: '' }],
  outputs: out,
  execute(ctx) {
    ctx.emit('out', ctx.inputs.in);
    return Promise.resolve();
  },
});

/** Loops on `checkpoint` until the run is cancelled; records what `checkpoint` threw. */
const looper = defineNodeKind({
  kind: 'c.looper',
  title: 'Looper',
  category: 'metric',
  description: 'Checkpoints until cancelled.',
  params: {},
  inputs: [],
  outputs: out,
  async execute(ctx) {
    for (;;) {
      try {
        await ctx.checkpoint();
      } catch (error) {
        thrown.push(error);
        throw error;
      }
    }
  },
});
const thrown: unknown[] = [];

const catalog = createCatalog([reporter, thrower, sink, looper]);
const runtime: TensorRuntime = {
  info: { backend: 'wasm', adapter: null },
  createSession: () => Promise.reject(new Error('these tests create no sessions')),
};

function flowOf(nodes: [string, string][], edges: [string, string][] = []): FlowDocument {
  return {
    format: FLOW_FORMAT,
    name: 'context',
    inputs: [],
    outputs: [],
    nodes: nodes.map(([id, kind]) => ({ id, kind, params: {}, position: { x: 0, y: 0 } })),
    edges: edges.map(([from, to]) => ({ from, to })),
  };
}

async function run(flow: FlowDocument, controller = new AbortController()) {
  const seen: string[] = [];
  const finished = new Map<string, NodeOutcome>();
  let clock = 0;
  const events: RunEvents = {
    nodeQueued: () => {},
    nodeStarted: () => {},
    nodeFinished: (node, outcome) => finished.set(node, outcome),
    emitted: (node, port, value) => seen.push(`emit ${node}.${port}=${String(value)}`),
    log: (node, message) => seen.push(`log ${node}: ${message}`),
    progress: (node, done, total) => seen.push(`progress ${node} ${done}/${total}`),
    interval: (node, kind, start, end) => seen.push(`interval ${node} ${kind} ${start}-${end}`),
    artifact: (node, name, bytes) => seen.push(`artifact ${node} ${name} ${bytes.length}`),
  };
  const result = await executeFlow({
    flow,
    catalog,
    inputs: {},
    runtime,
    producers: inProcessProducers,
    events,
    signal: controller.signal,
    now: () => (clock += 25),
    yieldNow: () => new Promise<void>((resolve) => setImmediate(resolve)),
  });
  return { result, seen, finished };
}

describe('the node context', () => {
  it("reports each node's logs, progress, intervals, artifacts and values under its own id", async () => {
    const { result, seen } = await run(
      flowOf([
        ['first', 'c.reporter'],
        ['second', 'c.reporter'],
      ]),
    );
    expect(result.status).toBe('ok');
    for (const id of ['first', 'second'])
      expect(seen.filter((line) => line.includes(` ${id}`))).toEqual([
        `log ${id}: hello from ${id}`,
        `progress ${id} 1/2`,
        `interval ${id} data_wait 1-2`,
        `artifact ${id} weights 1`,
        `emit ${id}.out=${id.length}`,
      ]);
  });

  it('fails a node whose body throws before returning a promise, and skips what follows', async () => {
    const { result, finished } = await run(
      flowOf(
        [
          ['bad', 'c.thrower'],
          ['after', 'c.sink'],
          ['fine', 'c.reporter'],
        ],
        [['bad.out', 'after.in']],
      ),
    );
    expect(result).toMatchObject({ status: 'error', failed: ['bad'] });
    expect(finished.get('bad')).toMatchObject({
      status: 'error',
      error: 'bad wiring in the body',
    });
    expect(finished.get('after')?.status).toBe('skipped');
    expect(finished.get('fine')?.status).toBe('ok');
  });

  it('stops a body at its next checkpoint once the run is cancelled', async () => {
    thrown.length = 0;
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const { result, finished } = await run(flowOf([['loop', 'c.looper']]), controller);
    expect(result.status).toBe('cancelled');
    expect(finished.get('loop')?.status).toBe('cancelled');
    expect(thrown).toHaveLength(1);
    expect(thrown[0]).toMatchObject({ code: 'cancelled' });
  });
});
