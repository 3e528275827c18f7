/**
 * Fixtures for the data engine's node tests: a flow run through the real
 * executor that keeps what it reported, and producer hosts whose producers
 * the test watches, slows down or breaks.
 */
import type { EpisodeData } from '../data/episode';
import type { ProduceRequest, Producer } from '../data/producer';
import type { NodeOutcome } from '../engine/events';
import { executeFlow, type ExecuteResult } from '../engine/executor';
import type { TensorRuntime } from '../runtime/tensor-runtime';
import { flowDocumentSchema, type FlowDocument } from '../flow/document';
import example from '../../examples/pendulum-world-model.flow.json';
import { builtinCatalog } from '../nodes';
import type { RunParams } from '../run/params';
import type { EnvironmentSpec } from './environment';
import { inProcessProducers, type ProducerHost } from './producer-host';

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
}

export async function runFlow(
  flow: FlowDocument,
  options: {
    runtime: TensorRuntime;
    inputs?: RunParams;
    signal?: AbortSignal;
    onEmit?: (metric: string, value: unknown) => void;
  },
): Promise<RunReport> {
  const outcomes = new Map<string, NodeOutcome>();
  const metrics = new Map<string, number[]>();
  const intervals: RunReport['intervals'] = [];
  const logs = new Map<string, string[]>();
  const result = await executeFlow({
    flow,
    catalog: builtinCatalog,
    inputs: { steps: 300, lr: 0.003, seed: 0, ...options.inputs },
    runtime: options.runtime,
    signal: options.signal ?? new AbortController().signal,
    now: () => Date.now(),
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
      artifact: () => undefined,
      interval: (node, kind, start, end) => intervals.push({ node, kind, start, end }),
    },
  });
  return { result, outcomes, metrics, intervals, logs };
}

/** A producer the test can watch: every request, its signal, and whether it was closed. */
export class WatchedProducer implements Producer {
  readonly requests: ProduceRequest[] = [];
  readonly signals: AbortSignal[] = [];
  closed = false;

  constructor(
    private readonly inner: Producer,
    private readonly behave: (request: ProduceRequest, signal: AbortSignal) => Promise<void>,
  ) {}

  get index(): number {
    return this.inner.index;
  }

  async produce(request: ProduceRequest, signal: AbortSignal): Promise<EpisodeData[]> {
    this.requests.push(request);
    this.signals.push(signal);
    await this.behave(request, signal);
    return this.inner.produce(request, signal);
  }

  close(): void {
    this.closed = true;
    this.inner.close();
  }
}

/**
 * A host over in-process producers that runs `behave` before each request
 * (to delay or fail it) and keeps every producer it made.
 */
export function watchedHost(
  behave: (request: ProduceRequest, signal: AbortSignal, producer: number) => Promise<void> = () =>
    Promise.resolve(),
): ProducerHost & { made: WatchedProducer[] } {
  const made: WatchedProducer[] = [];
  return {
    made,
    where: 'in this thread, watched',
    producers: (environment: EnvironmentSpec, count: number) =>
      inProcessProducers.producers(environment, count).map((inner) => {
        const producer = new WatchedProducer(inner, (r, s) => behave(r, s, inner.index));
        made.push(producer);
        return producer;
      }),
  };
}

/** Resolves never, rejects when `signal` aborts: a producer stuck until stopped. */
export function stuckUntilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((_, reject) =>
    signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true }),
  );
}
