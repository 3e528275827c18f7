/**
 * Fixtures for tests that run flows of the built-in node kinds: the gallery's
 * "Pendulum world model" example, and a run through the real executor that
 * keeps what it reported. A test helper, so it may do what node kinds never
 * do: drive the executor (the lint rules name it as the one exception).
 */
import type { NodeContext, NodeFile, NodeKind } from '../catalog/kind';
import type { ProducerHost } from '../data/producer';
import type { NodeOutcome } from '../engine/events';
import { executeFlow, type ExecuteResult } from '../engine/executor';
import type { RunCache } from '../engine/run-cache';
import { flowDocumentSchema, type FlowDocument } from '../flow/document';
import { inProcessProducers } from '../live/producer-host';
import type { RunParams } from '../run/params';
import type { TensorRuntime } from '../runtime/tensor-runtime';
import example from '../../examples/pendulum-world-model.flow.json';
import { builtinCatalog } from './index';

/** The "Pendulum world model" example, as the gallery ships it. */
export const pendulumExample = (): FlowDocument => flowDocumentSchema.parse(example);

/** `flow` with some params of node `id` replaced. */
export function withParams(
  flow: FlowDocument,
  id: string,
  params: Record<string, number | string | boolean>,
): FlowDocument {
  return {
    ...flow,
    nodes: flow.nodes.map((n) => (n.id === id ? { ...n, params: { ...n.params, ...params } } : n)),
  };
}

/** What a run reported, by node. */
export interface RunReport {
  result: ExecuteResult;
  outcomes: Map<string, NodeOutcome>;
  /** `node.port` → numbers emitted, in order. */
  metrics: Map<string, number[]>;
  intervals: { node: string; kind: string; start: number; end: number }[];
  logs: Map<string, string[]>;
  /** Bytes the nodes kept, in the order they kept them. */
  artifacts: { node: string; name: string; bytes: Uint8Array; mediaType: string }[];
}

export async function runFlow(
  flow: FlowDocument,
  options: {
    runtime: TensorRuntime;
    /** Where the data engines' producers run; default in this thread. */
    producers?: ProducerHost;
    inputs?: RunParams;
    signal?: AbortSignal;
    onEmit?: (metric: string, value: unknown) => void;
    /** The files the flow's file params name. */
    readFile?: (digest: string) => Promise<NodeFile>;
    /** The node-output cache the run uses; absent, every node runs. */
    cache?: RunCache;
  },
): Promise<RunReport> {
  const artifacts: RunReport['artifacts'] = [];
  const outcomes = new Map<string, NodeOutcome>();
  const metrics = new Map<string, number[]>();
  const intervals: RunReport['intervals'] = [];
  const logs = new Map<string, string[]>();
  const result = await executeFlow({
    flow,
    catalog: builtinCatalog,
    inputs: { steps: 300, lr: 0.003, seed: 0, ...options.inputs },
    runtime: options.runtime,
    producers: options.producers ?? inProcessProducers,
    signal: options.signal ?? new AbortController().signal,
    now: () => Date.now(),
    ...(options.readFile ? { readFile: options.readFile } : {}),
    ...(options.cache ? { cache: options.cache } : {}),
    events: {
      nodeQueued: () => undefined,
      nodeStarted: () => undefined,
      nodeFinished: (node, outcome) => outcomes.set(node, outcome),
      emitted: (node, port, value) => {
        options.onEmit?.(`${node}.${port}`, value);
        if (typeof value !== 'number') return;
        const key = `${node}.${port}`;
        metrics.set(key, [...(metrics.get(key) ?? []), value]);
      },
      log: (node, message) => logs.set(node, [...(logs.get(node) ?? []), message]),
      progress: () => undefined,
      artifact: (node, name, bytes, mediaType) => artifacts.push({ node, name, bytes, mediaType }),
      interval: (node, kind, start, end) => intervals.push({ node, kind, start, end }),
    },
  });
  return { result, outcomes, metrics, intervals, logs, artifacts };
}

/** What one node kind's body did when run alone. */
export interface KindRun {
  outputs: Map<string, unknown>;
  logs: string[];
  artifacts: { name: string; bytes: Uint8Array; mediaType: string }[];
}

/**
 * Runs one kind's body alone, with its params' defaults filled in, the given
 * inputs and files, and no runtime, programs or producers (a kind that needs
 * them belongs in a flow run, `runFlow`).
 */
export async function executeKind(
  kind: NodeKind,
  options: {
    params?: Record<string, unknown>;
    inputs?: Record<string, unknown>;
    files?: readonly NodeFile[];
  } = {},
): Promise<KindRun> {
  const run: KindRun = { outputs: new Map(), logs: [], artifacts: [] };
  const defaults = Object.fromEntries(Object.entries(kind.params).map(([k, s]) => [k, s.default]));
  const absent = (what: string) => () => {
    throw new Error(`executeKind gives no ${what}`);
  };
  const ctx: NodeContext<Record<string, unknown>> = {
    node: 'n',
    params: { ...defaults, ...options.params },
    inputs: options.inputs ?? {},
    signal: new AbortController().signal,
    get runtime(): never {
      return absent('runtime')();
    },
    get programs(): never {
      return absent('programs')();
    },
    get producers(): never {
      return absent('producers')();
    },
    readFile: (digest) => {
      const file = options.files?.find((f) => f.digest === digest);
      return file ? Promise.resolve(file) : Promise.reject(new Error(`no file ${digest}`));
    },
    emit: (port, value) => run.outputs.set(port, value),
    log: (message) => run.logs.push(message),
    progress: () => undefined,
    artifact: (name, bytes, mediaType) => run.artifacts.push({ name, bytes, mediaType }),
    interval: () => undefined,
    checkpoint: () => Promise.resolve(),
  };
  await kind.execute(ctx as never);
  return run;
}
