/**
 * The one protocol between the UI and the engine worker.
 *
 * Requests carry an id and name a call; every call has one typed result. The
 * worker answers each request exactly once, with the result or with an error
 * that keeps its `code`, so the UI can tell "the run was already claimed"
 * from "the engine crashed". Besides replies, the worker pushes events
 * (progress, a run that finished) that need no answer. Records themselves
 * never travel here: the worker writes them to IndexedDB and the UI reads
 * them back through live queries, so there is one copy of the truth.
 */
import type { Backend, EngineInfo } from '../src/core/runtime/tensor-runtime';
import type { PoolSnapshot, RequestProgress, RunMode, RunParity } from '../src/core/programs';
import type { RunId, RunStatus } from '../src/core/run/record';

/** Every call: its params and its result. */
export interface EngineCalls {
  /** What `auto` resolves to here and which adapter there is. */
  info: { params: Record<string, never>; result: EngineInfo };
  /** Claim a queued run and drive it to the end; resolves with its final status. */
  start: { params: { runId: RunId }; result: { status: RunStatus } };
  /** Cancel a run this engine is driving; false when it is not driving it. */
  cancel: { params: { runId: RunId }; result: { cancelled: boolean } };
  /**
   * Run a stored run's model programs again, serially and then interleaved,
   * and compare every output and metric bit for bit. Writes nothing.
   */
  checkParity: { params: { runId: RunId }; result: RunParity };
  /** The device pools' budgets; with `backend`, first set its budget (bytes, or null for the default). */
  poolBudgets: {
    params: { backend?: Backend; bytes?: number | null };
    result: PoolBudgetInfo[];
  };
  /**
   * Read a file a person imports, off the main thread: a run file is checked
   * and written whole (or refused, writing nothing); any other file comes
   * back parsed, for the page to import as a flow.
   */
  importFile: { params: { name: string; file: Blob }; result: ImportedFile };
}
export type EngineCall = keyof EngineCalls;

export type EngineRequest = {
  [C in EngineCall]: { id: number; call: C; params: EngineCalls[C]['params'] };
}[EngineCall];

/** What an imported file turned out to be: a run now stored, or a parsed document for the page. */
export type ImportedFile = { kind: 'run'; runId: RunId } | { kind: 'document'; value: unknown };

/** A device pool's budget and where it came from. */
export interface PoolBudgetInfo {
  backend: Backend;
  bytes: number;
  source: 'setting' | 'default';
}

/** The device pool as one node's programs saw it after a runner tick. */
export interface PoolEvent {
  type: 'pool';
  runId: RunId;
  node: string;
  backend: Backend;
  mode: RunMode;
  tick: number;
  /** The node's programs have ended; this was their last tick. */
  final: boolean;
  pool: PoolSnapshot;
  requests: readonly RequestProgress[];
}

export interface SerializedError {
  code: string;
  message: string;
}

export type EngineReply =
  | { type: 'reply'; id: number; ok: true; result: EngineCalls[EngineCall]['result'] }
  | { type: 'reply'; id: number; ok: false; error: SerializedError };

/** Pushed by the worker without a request. */
export type EngineEvent =
  | { type: 'progress'; runId: RunId; node: string; done: number; total: number }
  /** A streaming port's latest value, at most one per rate-limit interval. */
  | { type: 'live'; runId: RunId; node: string; port: string; value: number }
  | { type: 'run-finished'; runId: RunId; status: RunStatus }
  /** A write of the run's record failed (the storage quota is full, most often); the run is being stopped. */
  | { type: 'storage-failure'; runId: RunId; reason: string }
  /**
   * The run's writes have waited `waitedMs` for the browser's storage, which
   * does not answer; `null` once they answer again.
   */
  | { type: 'storage-stall'; runId: RunId; waitedMs: number | null }
  | PoolEvent;

export type EngineMessage = EngineReply | EngineEvent;

/** An error that crossed the protocol, with its code kept. */
export class EngineError extends Error {
  override name = 'EngineError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function serializeError(error: unknown): SerializedError {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return { code: typeof code === 'string' ? code : error.name, message: error.message };
  }
  return { code: 'unknown', message: String(error) };
}
