/**
 * A node's context: what a node body sees of its run while it executes.
 *
 * Idea: every method reports under the node's own id to the run's events,
 * and `checkpoint` is where a long body lets other work in and learns that
 * its run was cancelled. Trade-off: the context is a class, its methods on
 * the prototype, so starting a node allocates one object instead of a
 * closure per method — the engine's cost per node is mostly allocation — at
 * the price that a body must call them as methods (`ctx.log(…)`), which is
 * how `NodeContext` declares them.
 */
import type { NodeContext, NodeFile, NodeKind } from '../catalog/kind';
import type { ProducerHost } from '../data/producer';
import type { ProgramHost } from '../programs/host';
import type { RunEvents } from './events';
import { runCancelled } from '../runtime/cancel';
import type { TensorRuntime } from '../runtime/tensor-runtime';

/** Bodies yield at most this often, so a tight loop stays cancellable without paying per step. */
export const YIELD_EVERY_MS = 10;

/** What a context reads and writes of its node's state in the executor. */
export interface NodeRunState {
  readonly id: string;
  readonly kind: NodeKind;
  readonly params: Record<string, unknown>;
  readonly inputs: Record<string, unknown>;
  /** The last value emitted on each output port. */
  readonly last: Map<string, unknown>;
}

/** What every node of one run shares. */
export interface RunShared {
  readonly events: RunEvents;
  readonly signal: AbortSignal;
  readonly now: () => number;
  readonly yieldNow: () => Promise<void>;
  readonly runtime: TensorRuntime;
  readonly programs: ProgramHost;
  readonly producers: ProducerHost;
  readonly readFile: ((digest: string) => Promise<NodeFile>) | undefined;
}

/**
 * One node's view of its run: the context its body receives. The methods
 * live on the prototype, so starting a node allocates one object rather than
 * a closure per method (the engine's cost per node is mostly allocation).
 */
export class NodeRun implements NodeContext<Record<string, unknown>> {
  readonly node: string;
  readonly params: Record<string, unknown>;
  readonly inputs: Record<string, unknown>;
  readonly signal: AbortSignal;
  readonly runtime: TensorRuntime;
  readonly programs: ProgramHost;
  readonly producers: ProducerHost;
  private readonly state: NodeRunState;
  private readonly run: RunShared;
  private lastYield: number;

  constructor(state: NodeRunState, run: RunShared, startedAt: number) {
    this.node = state.id;
    this.params = state.params;
    this.inputs = state.inputs;
    this.signal = run.signal;
    this.runtime = run.runtime;
    this.programs = run.programs;
    this.producers = run.producers;
    this.state = state;
    this.run = run;
    this.lastYield = startedAt;
  }

  readFile(digest: string): Promise<NodeFile> {
    return (
      this.run.readFile?.(digest) ??
      Promise.reject(new Error(`no file store here to read ${digest.slice(0, 19)}…`))
    );
  }

  emit(port: string, value: unknown): void {
    const state = this.state;
    const spec = state.kind.outputs.find((p) => p.name === port);
    if (!spec) throw new Error(`node '${state.id}' has no output port '${port}'`);
    if (!spec.stream && state.last.has(port))
      throw new Error(`output '${port}' is not a streaming port and may emit only once`);
    state.last.set(port, value);
    this.run.events.emitted(state.id, port, value, spec.stream === true);
  }

  log(message: string): void {
    this.run.events.log(this.state.id, message);
  }

  progress(done: number, total: number, perSecond?: number): void {
    this.run.events.progress(this.state.id, done, total, perSecond);
  }

  artifact(name: string, bytes: Uint8Array, mediaType: string): void {
    this.run.events.artifact(this.state.id, name, bytes, mediaType);
  }

  interval(kind: string, start: number, end: number): void {
    this.run.events.interval(this.state.id, kind, start, end);
  }

  async checkpoint(): Promise<void> {
    const { signal, now, yieldNow } = this.run;
    if (signal.aborted) throw runCancelled();
    if (now() - this.lastYield < YIELD_EVERY_MS) return;
    await yieldNow();
    this.lastYield = now();
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- it may abort while we yield
    if (signal.aborted) throw runCancelled();
  }
}
