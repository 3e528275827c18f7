/**
 * A node kind: everything about one kind of node in one place — its params
 * with defaults and ranges, its typed ports, its docs and its executor. The
 * UI renders every kind generically from this declaration; the engine runs
 * `execute` with a context that hides where values, metrics and tensors go.
 */
import type { TensorRuntime } from '../runtime/tensor-runtime';
import type { ProducerHost } from '../data/producer';
import type { ProgramHost } from '../programs/host';
import type { ParamSpecs, ParamValues } from './params';
import type { PortSpec } from './ports';

export const nodeCategories = ['data', 'model', 'train', 'eval', 'metric'] as const;
export type NodeCategory = (typeof nodeCategories)[number];

/** What a node's body can see and do while it runs. */
export interface NodeContext<P> {
  /** This node's id in the flow. */
  readonly node: string;
  /** Params with defaults filled in and flow inputs substituted. */
  readonly params: P;
  /** Values on the connected input ports (absent when an optional port is not wired). */
  readonly inputs: Readonly<Record<string, unknown>>;
  /** Aborted when the run is cancelled; long bodies pass it on or call `checkpoint`. */
  readonly signal: AbortSignal;
  readonly runtime: TensorRuntime;
  /** Runs model programs over the engine's resident models and device pool. */
  readonly programs: ProgramHost;
  /** Where a data engine starts its producers (workers of their own in the browser). */
  readonly producers: ProducerHost;
  /** The bytes of a file a file param refers to (its `sha256:` digest). */
  readFile(digest: string): Promise<NodeFile>;
  /** Publish a value on an output port (a streaming port may emit many). */
  emit(port: string, value: unknown): void;
  log(message: string): void;
  /** `done` of `total` units (steps), at `perSecond` where the node measured its own rate. */
  progress(done: number, total: number, perSecond?: number): void;
  /** Keep bytes the run produced (e.g. a trained model). */
  artifact(name: string, bytes: Uint8Array, mediaType: string): void;
  /** Record a span of time the node spent in a named state (e.g. `data_wait`), in epoch seconds. */
  interval(kind: string, start: number, end: number): void;
  /** Yield to the scheduler; throws if the run was cancelled. */
  checkpoint(): Promise<void>;
}

/** A file picked for a file param, as a node reads it. */
export interface NodeFile {
  readonly digest: string;
  readonly name: string;
  readonly mediaType: string;
  readonly bytes: Uint8Array;
}

export interface NodeKind<P extends ParamSpecs = ParamSpecs> {
  kind: string;
  title: string;
  category: NodeCategory;
  description: string;
  params: P;
  inputs: readonly PortSpec[];
  outputs: readonly PortSpec[];
  /**
   * The implementation version: bumped whenever the kind's outputs for the
   * same params and inputs change, so node-output cache entries made by the
   * older code stop matching (it is part of the cache key). Absent: 1.
   */
  version?: number;
  /**
   * How the node-output cache treats the kind. `pure` (the default): its
   * outputs follow from its params and inputs alone. `backend`: they also
   * depend on the backend the node runs on (floating point differs between
   * devices), which joins the key. `never`: they depend on the wall clock or
   * on outside state (a paced producer, anything reading `Date.now()`), so
   * the node and everything downstream of it run every time.
   */
  cache?: KindCaching;
  /**
   * Findings across params that no single param's range can express (one
   * must divide another, a timeout must be positive …), over the params with
   * defaults filled in and flow inputs substituted. Validation and submit
   * call it, so a bad combination is refused before a run exists.
   */
  checkParams?(params: ParamValues<P>): readonly ParamFinding[];
  execute(ctx: NodeContext<ParamValues<P>>): Promise<void>;
}

/** See `NodeKind.cache`. */
export type KindCaching = 'pure' | 'backend' | 'never';

/** What `checkParams` found wrong, naming the param a person edits to fix it. */
export interface ParamFinding {
  param: string;
  message: string;
}

/** Declare a node kind; infers param value types for `execute`. */
export function defineNodeKind<const P extends ParamSpecs>(kind: NodeKind<P>): NodeKind<P> {
  return kind;
}
