/**
 * The flow executor: takes one validated flow through one run.
 *
 * A node fires as soon as every wired input holds a value, so independent
 * branches run side by side. A streaming output emits many values while its
 * node runs; the node's downstream sees the last one when the node finishes.
 * A failed node skips everything downstream of it while other branches go
 * on; a cancel stops scheduling, aborts the bodies in flight and marks what
 * never ran as cancelled.
 *
 * The executor records nothing itself: it reports to `RunEvents`, and the run
 * driver decides what becomes the durable record. That keeps this file free
 * of storage and lets tests watch a run through the same seam.
 *
 * The flow's wiring is indexed once (`flowGraph`) and shared by validation and
 * scheduling, and nodes live in an array in document order, so a run's own
 * cost grows with its nodes and edges, never with their product, and a node
 * costs one promise reaction beyond its body.
 */
import type { Catalog } from '../catalog/catalog';
import type { NodeFile, NodeKind } from '../catalog/kind';
import type { FlowDocument } from '../flow/document';
import { degree, flowGraph } from '../flow/graph';
import { resolveOutput, validateFlow } from '../flow/validate';
import { resolveNodeParams, type RunParams } from '../run/params';
import type { NodeStatus } from '../run/record';
import type { ProducerHost } from '../data/producer';
import { unboundedProgramHost, type ProgramHost } from '../programs/host';
import type { TensorRuntime } from '../runtime/tensor-runtime';
import { closeRunResources } from '../runtime/run-scope';
import { runCancelled } from '../runtime/cancel';
import { NodeRun, YIELD_EVERY_MS, type RunShared } from './node-run';
import { BYPASSED, bypassedUpstream, passThrough } from './bypass';
import type { RunEvents } from './events';
import { RunCacheGate, type RunCache } from './run-cache';
import { neededFor, notNeeded } from './partial';
import { collectingArtifacts, type KeptArtifact } from './collect-artifacts';
import { FlowbenchError } from '../errors';
import type { CacheEntry } from '../cache';

export interface ExecuteOptions {
  flow: FlowDocument;
  catalog: Catalog;
  /** Resolved flow input values (see `resolveRunParams`). */
  inputs: RunParams;
  runtime: TensorRuntime;
  /** Where nodes run model programs; default one unbounded pool over `runtime`. */
  programs?: ProgramHost;
  /**
   * Where data engines start their producers. Required, like `runtime`: the
   * browser's engine passes workers of their own, tests and Node pass
   * `inProcessProducers`; no default could know which.
   */
  producers: ProducerHost;
  /** Reads a stored file by digest (file params); default none stored. */
  readFile?: (digest: string) => Promise<NodeFile>;
  events: RunEvents;
  signal: AbortSignal;
  /** Epoch milliseconds; injected so tests need no real clock. */
  now: () => number;
  /** Lets other work (a cancel message, a flush) in; defaults to a macrotask. */
  yieldNow?: () => Promise<void>;
  /** The node-output cache: nodes whose key it holds do not run. Absent: every node runs. */
  cache?: RunCache;
  /** `Run to here`: run only this node and what it needs; every other node is skipped. */
  runTo?: string;
}

export interface ExecuteResult {
  status: 'ok' | 'error' | 'cancelled';
  /** Flow outputs by name: the last value each emitted. */
  outputs: Record<string, unknown>;
  /** Ids of the nodes that failed, in the order they failed. */
  failed: string[];
}

const macrotask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * A yield that lets other work in at most every `everyMs` (a program runner
 * calls it after every unit; most calls return at once).
 */
export function throttledYield(
  now: () => number,
  yieldNow: () => Promise<void> = macrotask,
  everyMs = YIELD_EVERY_MS,
): () => Promise<void> {
  let last = now();
  return async () => {
    if (now() - last < everyMs) return;
    await yieldNow();
    last = now();
  };
}

interface NodeState {
  id: string;
  kind: NodeKind;
  params: Record<string, unknown>;
  /** Where this node's outgoing edges are in the graph (see `Adjacency`). */
  vertex: number;
  /** Wired inputs that have not received their value yet. */
  waiting: number;
  inputs: Record<string, unknown>;
  last: Map<string, unknown>;
  status: NodeStatus;
  bypass: boolean;
  /** It or a node above it is never cached: it runs, and nothing of it is stored. */
  volatile: boolean;
  /** It or a node above it was asked to recompute: it runs, and what it makes is stored. */
  fresh: boolean;
  artifacts?: KeptArtifact[];
}

export async function executeFlow(options: ExecuteOptions): Promise<ExecuteResult> {
  const { flow, catalog, signal, now } = options;
  const gate = options.cache && new RunCacheGate(options.cache, options.runtime, options.events);
  // With a cache, what a node keeps is also collected, to be stored with its outputs.
  const events = gate
    ? collectingArtifacts(options.events, (id) => states[graph.vertex.get(id)!])
    : options.events;
  const yieldNow = options.yieldNow ?? macrotask;
  const programs =
    options.programs ?? unboundedProgramHost(options.runtime, throttledYield(now, yieldNow));
  // The wiring, indexed once: validation and scheduling then cost what each
  // node's own edges cost, not a scan of the whole flow per node.
  const graph = flowGraph(flow);
  const issues = validateFlow(flow, catalog, graph);
  const { wires } = graph;
  // A valid flow has one vertex per node, in document order: states[i] is flow.nodes[i].
  const states: NodeState[] = [];
  let found: Set<string> | undefined;
  for (const [index, node] of flow.nodes.entries()) {
    const kind = catalog.get(node.kind);
    if (!kind) continue;
    const resolved = resolveNodeParams(node, kind, options.inputs, index);
    // A literal param out of range is already a validation finding; report it once.
    for (const issue of resolved.issues) {
      found ??= new Set(issues.map((known) => known.path));
      if (!found.has(issue.path)) issues.push(issue);
    }
    // Validation refuses an input wired twice, so each wire fills one input.
    const v = graph.nodeVertex[index]!;
    states.push({
      id: node.id,
      kind,
      params: resolved.params,
      vertex: v,
      waiting: degree(graph.incoming, v),
      inputs: {},
      last: new Map(),
      status: 'queued',
      bypass: node.bypass === true,
      ...(gate ? gate.initialMarks(node.id, kind) : { volatile: true, fresh: false }),
    });
  }
  if (issues.length > 0) throw new FlowbenchError('invalid-flow', { issues: issues });

  const failed: string[] = [];
  // Nodes in flight, and a promise that settles when none are left.
  let inFlight = 0;
  let drained!: () => void;
  const allDone = new Promise<void>((resolve) => (drained = resolve));
  for (const state of states) events.nodeQueued(state.id);
  if (options.runTo !== undefined) {
    const needed = neededFor(graph, options.runTo);
    for (const state of states) {
      if (needed.has(state.vertex)) continue;
      state.status = 'skipped';
      events.nodeFinished(state.id, {
        status: 'skipped',
        durationMs: null,
        error: notNeeded(options.runTo),
      });
    }
  }

  /** Nodes whose inputs are all present and that have not started. */
  const ready = states.filter((state) => state.waiting === 0 && state.status === 'queued');
  let nextReady = 0;

  const { start, wires: leaving } = graph.outgoing;

  /**
   * Skips everything downstream of `from` that has not started, depth first
   * in edge order, each naming the node above it that did not finish. With a
   * stack, not recursion: a failure atop a chain of thousands of nodes must
   * not overflow the call stack.
   */
  const skipFrom = (from: NodeState) => {
    const pending: [NodeState, NodeState][] = [];
    const pushBelow = (state: NodeState) => {
      for (let k = start[state.vertex + 1]! - 1; k >= start[state.vertex]!; k--)
        pending.push([states[wires[leaving[k]!]!.target]!, state]);
    };
    pushBelow(from);
    for (let top = pending.pop(); top; top = pending.pop()) {
      const [next, above] = top;
      if (next.status !== 'queued') continue;
      next.status = 'skipped';
      events.nodeFinished(next.id, {
        status: 'skipped',
        durationMs: null,
        error: `skipped: upstream node '${above.id}' did not finish`,
      });
      pushBelow(next);
    }
  };

  const deliver = (state: NodeState) => {
    for (let k = start[state.vertex]!; k < start[state.vertex + 1]!; k++) {
      const { edge, fromPort, toPort, target: t } = wires[leaving[k]!]!;
      const target = states[t]!;
      if (target.status !== 'queued') continue;
      if (!state.last.has(fromPort) && state.bypass) {
        target.status = 'skipped';
        const type = state.kind.outputs.find((p) => p.name === fromPort)?.type ?? 'matching';
        events.nodeFinished(target.id, {
          status: 'skipped',
          durationMs: null,
          error: bypassedUpstream(state.id, fromPort, type),
        });
        skipFrom(target);
        continue;
      }
      if (!state.last.has(fromPort)) {
        target.status = 'error';
        failed.push(target.id);
        events.nodeFinished(target.id, {
          status: 'error',
          durationMs: null,
          error: `input '${toPort}' received nothing: ${edge.from} finished without emitting`,
        });
        skipFrom(target);
        continue;
      }
      target.inputs[toPort] = state.last.get(fromPort);
      target.volatile ||= state.volatile;
      target.fresh ||= state.fresh;
      target.waiting--;
      if (target.waiting === 0) ready.push(target);
    }
  };

  /** A bypassed node: nothing runs; its outputs pass on its inputs where the types match. */
  const bypass = (state: NodeState) => {
    for (const [port, value] of passThrough(state.kind, state.inputs)) state.last.set(port, value);
    state.status = 'skipped';
    events.nodeFinished(state.id, { status: 'skipped', durationMs: null, error: BYPASSED });
    deliver(state);
  };

  const finished = (state: NodeState, startedAt: number, key: string | null) => {
    if (signal.aborted) throw runCancelled();
    state.status = 'ok';
    events.nodeFinished(state.id, { status: 'ok', durationMs: now() - startedAt, error: '' });
    gate?.store(state, key);
    deliver(state);
  };

  /** A node whose outputs the cache held: it does not run; they pass on as if it had. */
  const fromCache = (
    state: NodeState,
    startedAt: number,
    entry: CacheEntry,
    values: Map<string, unknown>,
  ) => {
    for (const [port, value] of values) state.last.set(port, value);
    // Its artifacts belong to this run's record too, so Export run and downloads stay whole.
    for (const { name, bytes, mediaType } of entry.artifacts)
      options.events.artifact(state.id, name, bytes, mediaType);
    state.status = 'cached';
    events.log(state.id, `from the cache: computed by run ${entry.runId} (node '${entry.node}')`);
    events.nodeFinished(state.id, {
      status: 'cached',
      durationMs: now() - startedAt,
      error: '',
      cachedFrom: { runId: entry.runId, node: entry.node },
    });
    deliver(state);
  };

  const stopped = (state: NodeState, startedAt: number, error: unknown) => {
    const cancelled = signal.aborted;
    state.status = cancelled ? 'cancelled' : 'error';
    if (!cancelled) failed.push(state.id);
    events.nodeFinished(state.id, {
      status: state.status,
      durationMs: now() - startedAt,
      error: cancelled ? 'cancelled while running' : errorMessage(error),
    });
    if (!cancelled) skipFrom(state);
  };

  const shared: RunShared = {
    events,
    signal,
    now,
    yieldNow,
    runtime: options.runtime,
    programs,
    producers: options.producers,
    readFile: options.readFile,
  };

  /** Reports how a node's body ended, then schedules what that made ready. */
  const ended = (
    state: NodeState,
    startedAt: number,
    ok: boolean,
    error: unknown,
    key: string | null = null,
  ) => {
    try {
      // As one try/catch around the body and its report: a report that throws is an error too.
      if (!ok) stopped(state, startedAt, error);
      else
        try {
          finished(state, startedAt, key);
        } catch (thrown) {
          stopped(state, startedAt, thrown);
        }
    } finally {
      settled();
    }
  };

  /** Starts a node's body; its outcome is reported once the body settles. */
  const runNode = (state: NodeState, key: string | null = null, started?: number) => {
    state.status = 'running';
    const startedAt = started ?? now();
    if (started === undefined) events.nodeStarted(state.id, startedAt);
    let body: Promise<void>;
    try {
      // `resolve` returns the body's own promise as is; it only guards a body that returns none.
      body = Promise.resolve(state.kind.execute(new NodeRun(state, shared, startedAt) as never));
    } catch (error) {
      // A body that throws before it returns a promise fails like one that rejects.
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- what the body threw, as is
      body = Promise.reject(error);
    }
    // One reaction per node; a report that throws still settles the node, then surfaces.
    void body.then(
      () => ended(state, startedAt, true, undefined, key),
      (error: unknown) => ended(state, startedAt, false, error),
    );
  };

  /** Looks a node up in the cache: a hit stands in for its run, a miss runs it. */
  const lookUpOrRun = (cache: RunCacheGate, state: NodeState) => {
    state.status = 'running';
    const startedAt = now();
    events.nodeStarted(state.id, startedAt);
    void cache.lookUp(state).then(
      (found) => {
        if (signal.aborted) ended(state, startedAt, false, runCancelled());
        else if (found.found !== 'hit') runNode(state, found.key, startedAt);
        else
          try {
            fromCache(state, startedAt, found.entry, found.values);
            settled();
          } catch (error) {
            ended(state, startedAt, false, error);
          }
      },
      (error: unknown) => {
        events.log(
          state.id,
          `warning: the cache could not be read (${errorMessage(error)}); ran the node`,
        );
        runNode(state, null, startedAt);
      },
    );
  };

  const settled = () => {
    inFlight--;
    schedule();
    if (inFlight === 0) drained();
  };

  const schedule = () => {
    if (signal.aborted) return;
    // An index, not `shift()`: a run's ready list is read once, front to back.
    while (nextReady < ready.length) {
      const state = ready[nextReady++] as NodeState;
      if (state.status !== 'queued') continue;
      if (state.bypass) {
        bypass(state);
        continue;
      }
      inFlight++;
      if (gate?.shouldLookUp(state)) lookUpOrRun(gate, state);
      else runNode(state);
    }
  };

  schedule();
  if (inFlight === 0) drained();
  await allDone;
  await gate?.settled();
  closeRunResources(signal); // every body has returned: what the run owns ends with it

  if (signal.aborted) {
    for (const state of states) {
      if (state.status !== 'queued') continue;
      state.status = 'cancelled';
      events.nodeFinished(state.id, {
        status: 'cancelled',
        durationMs: null,
        error: 'cancelled before it started',
      });
    }
  }

  const outputs: Record<string, unknown> = {};
  for (const name of flow.outputs) {
    const address = resolveOutput(flow, catalog, name);
    if (typeof address === 'string') continue;
    const state = states[graph.vertex.get(address.node)!];
    if (state?.last.has(address.port)) outputs[name] = state.last.get(address.port);
  }
  const status = signal.aborted ? 'cancelled' : failed.length > 0 ? 'error' : 'ok';
  return { status, outputs, failed };
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
