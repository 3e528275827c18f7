/**
 * Engine overhead per node: a 10,000-node DAG through `executeFlow` versus a
 * bare loop that calls the same node functions in topological order.
 *
 * The DAG is 100 layers of 100 nodes; every node past the first layer reads
 * two nodes of the layer before, so values really travel along ~20,000 edges.
 * The bare loop does only what any runner must (look up inputs, call
 * `execute`, keep the emitted value); everything the executor does beyond it
 * — validation, param resolution, scheduling, events — is its overhead.
 * Events go to no-op sinks: what the run driver records is not the engine's cost.
 */
import { createCatalog, type Catalog } from '../../src/core/catalog/catalog';
import { defineNodeKind, type NodeContext, type NodeKind } from '../../src/core/catalog/kind';
import { executeFlow } from '../../src/core/engine/executor';
import { inProcessProducers } from '../../src/core/live/producer-host';
import type { TensorRuntime } from '../../src/core/runtime/tensor-runtime';
import type { FlowDocument } from '../../src/core/flow/document';
import { compareRow, overheadAtMost, ratioAtMost, type BenchRow } from '../lib/rows';
import { alternate } from '../lib/stats';
import { quietEvents } from './events';

const NODES = 10_000;
const WIDTH = 100;
const BUSY_MS = 1;

/** Spin for `ms` on the CPU: a node body that does real work and never yields. */
function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

function kinds(prefix: string, body: () => void): NodeKind[] {
  const out = [{ name: 'out', type: 'number', description: 'A number.' }] as const;
  const source = defineNodeKind({
    kind: `${prefix}.source`,
    title: 'Source',
    category: 'data',
    description: 'Emits one number.',
    params: {},
    inputs: [],
    outputs: out,
    execute(ctx) {
      body();
      ctx.emit('out', 1);
      return Promise.resolve();
    },
  });
  const join = defineNodeKind({
    kind: `${prefix}.join`,
    title: 'Join',
    category: 'data',
    description: 'Adds its two inputs.',
    params: {},
    inputs: [
      { name: 'a', type: 'number', description: 'A number.' },
      { name: 'b', type: 'number', description: 'A number.' },
    ],
    outputs: out,
    execute(ctx) {
      body();
      ctx.emit('out', (ctx.inputs.a as number) + (ctx.inputs.b as number));
      return Promise.resolve();
    },
  });
  return [source, join];
}

const noopCatalog = createCatalog(kinds('noop', () => undefined));
const busyCatalog = createCatalog(kinds('busy', () => spin(BUSY_MS)));

/** `nodes` nodes in layers of `width`; node order is topological. */
export function layeredDag(prefix: string, nodes: number, width: number): FlowDocument {
  const flow: FlowDocument = {
    format: 'flowbench.flow/1',
    name: `${prefix}-dag-${nodes}`,
    inputs: [],
    outputs: [],
    nodes: [],
    edges: [],
  };
  for (let i = 0; i < nodes; i++) {
    const layer = Math.floor(i / width);
    const col = i % width;
    flow.nodes.push({
      id: `n${layer}_${col}`,
      kind: layer === 0 ? `${prefix}.source` : `${prefix}.join`,
      params: {},
      position: { x: layer * 200, y: col * 100 },
    });
    if (layer === 0) continue;
    flow.edges.push(
      { from: `n${layer - 1}_${col}.out`, to: `n${layer}_${col}.a` },
      { from: `n${layer - 1}_${(col + 1) % width}.out`, to: `n${layer}_${col}.b` },
    );
  }
  return flow;
}

const noop = () => undefined;
const events = quietEvents();
const noRuntime: TensorRuntime = {
  info: { backend: 'wasm', adapter: null },
  createSession: () => Promise.reject(new Error('the engine bench has no tensor runtime')),
};
// A macrotask without Node's 1 ms setTimeout clamp, like a worker's unclamped yield.
const yieldNow = () => new Promise<void>((resolve) => setImmediate(resolve));

/** One run through the engine; returns wall milliseconds. */
async function viaEngine(flow: FlowDocument, catalog: Catalog): Promise<number> {
  const start = performance.now();
  const result = await executeFlow({
    flow,
    catalog,
    inputs: {},
    runtime: noRuntime,
    producers: inProcessProducers,
    events,
    signal: new AbortController().signal,
    now: Date.now,
    yieldNow,
  });
  const ms = performance.now() - start;
  if (result.status !== 'ok') throw new Error(`the engine run ended ${result.status}`);
  return ms;
}

/** The same node functions called in a plain loop; returns wall milliseconds. */
async function viaBareLoop(flow: FlowDocument, catalog: Catalog): Promise<number> {
  const start = performance.now();
  const signal = new AbortController().signal;
  const incoming = new Map<string, { port: string; from: string }[]>();
  for (const edge of flow.edges) {
    const dot = edge.to.indexOf('.');
    const node = edge.to.slice(0, dot);
    const list = incoming.get(node) ?? [];
    list.push({ port: edge.to.slice(dot + 1), from: edge.from });
    incoming.set(node, list);
  }
  const values = new Map<string, unknown>();
  for (const node of flow.nodes) {
    const kind = catalog.get(node.kind)!;
    const inputs: Record<string, unknown> = {};
    for (const wire of incoming.get(node.id) ?? []) inputs[wire.port] = values.get(wire.from);
    // Only what these node bodies use: a member the context gains later (that these
    // bodies never call) must not stop the bench from compiling.
    const ctx: Partial<NodeContext<Record<string, unknown>>> = {
      node: node.id,
      params: {},
      inputs,
      signal,
      runtime: noRuntime,
      emit: (port, value) => values.set(`${node.id}.${port}`, value),
      log: noop,
      progress: noop,
      artifact: noop,
      checkpoint: () => Promise.resolve(),
    };
    await kind.execute(ctx as NodeContext<Record<string, unknown>> as never);
  }
  return performance.now() - start;
}

const gc = (globalThis as { gc?: () => void }).gc;

async function measure(
  prefix: string,
  catalog: Catalog,
  trials: { min: number; max: number; budgetMs: number },
): Promise<{ engine: number[]; bare: number[] }> {
  const flow = layeredDag(prefix, NODES, WIDTH);
  // Warm the JIT on a small DAG: a full-size warm-up would double the row's time.
  const small = layeredDag(prefix, 1_000, WIDTH);
  await viaEngine(small, catalog);
  await viaBareLoop(small, catalog);
  const perNodeUs = (ms: number) => (ms * 1000) / NODES;
  const { a, b } = await alternate({
    a: async () => perNodeUs(await viaEngine(flow, catalog)),
    b: async () => perNodeUs(await viaBareLoop(flow, catalog)),
    minTrials: trials.min,
    maxTrials: trials.max,
    budgetMs: trials.budgetMs,
    before: () => gc?.(),
  });
  return { engine: a, bare: b };
}

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  console.error(`[engine] ${NODES} no-op nodes…`);
  const noops = await measure('noop', noopCatalog, { min: 3, max: 9, budgetMs: 30_000 });
  const noopRow = compareRow({
    name: 'engine: 10k no-op nodes, per node',
    unit: 'µs/node',
    lowerIsBetter: true,
    ours: noops.engine,
    reference: noops.bare,
    target: overheadAtMost(10, 'µs/node'),
  });
  noopRow.note = `executeFlow vs a bare loop calling the same execute functions; overhead ${formatOverhead(noopRow)} µs/node; DAG of ${NODES} nodes, ${WIDTH} wide, 2 inputs per node`;
  rows.push(noopRow);

  console.error(`[engine] ${NODES} nodes of ${BUSY_MS} ms…`);
  const busy = await measure('busy', busyCatalog, { min: 2, max: 5, budgetMs: 40_000 });
  const busyRow = compareRow({
    name: `engine: 10k nodes of ${BUSY_MS} ms, per node`,
    unit: 'µs/node',
    lowerIsBetter: true,
    ours: busy.engine,
    reference: busy.bare,
    target: ratioAtMost(1.01, '≤ 1 % overhead'),
  });
  busyRow.note = `each node spins ${BUSY_MS} ms on the CPU; overhead ${((busyRow.ratio! - 1) * 100).toFixed(2)} %`;
  rows.push(busyRow);
  return rows;
}

function formatOverhead(row: BenchRow): string {
  return ((row.value ?? Number.NaN) - (row.reference ?? Number.NaN)).toFixed(2);
}
