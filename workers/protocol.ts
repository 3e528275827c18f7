/**
 * The one protocol between the UI and the engine worker.
 *
 * Requests carry an id and name a call; every call has one typed result.
 * `EngineCalls` is the one map of calls: the worker's handlers
 * (`EngineHandlers`, one per call, checked by the compiler to be complete and
 * to take and return what the map says) and the UI's `call()` both follow
 * from it, so neither end casts. The worker answers each request exactly
 * once, with the result or with a catalogue error (code and data, revived as
 * the same `FlowbenchError` on the UI's side), so the UI can tell "the run
 * was already claimed" from "the engine crashed". Besides replies, the worker
 * pushes events (progress, a run that finished) that need no answer. Records
 * themselves never travel here: the worker writes them to IndexedDB and the
 * UI reads them back through live queries, so there is one copy of the truth.
 */
import type { ArrayCard } from '../src/core/arrays/array-file';
import type { ModelCard } from '../src/core/onnx/signature';
import type { Backend, EngineInfo } from '../src/core/runtime/tensor-runtime';
import { FlowbenchError, serializeError, type SerializedError } from '../src/core/errors';
import type { PoolSnapshot, RequestProgress, RunMode, RunParity } from '../src/core/programs';
import type { RunId, RunStatus } from '../src/core/run/record';
import type { HeaderChoice, TablePreview } from '../src/core/tables';

/** Every call: its params and its result. */
export interface EngineCalls {
  /** What `auto` resolves to here and which adapter there is. */
  info: { params: Record<string, never>; result: EngineInfo };
  /**
   * Runs were journaled: look at the queue now, and take the oldest queued
   * runs this engine can serve while the browser has a run slot free. Resolves
   * with the runs taken (they go on running; each ends with `run-finished`).
   * Runs left queued are announced to the other tabs' engines.
   */
  take: { params: Record<string, never>; result: { taken: RunId[] } };
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
   * Read the files a person imports, off the main thread: each run file is
   * checked and written whole (or refused, writing nothing of it); any other
   * file comes back parsed, for the page to import as a flow. One outcome per
   * file, in order.
   */
  importFiles: {
    params: { files: { name: string; file: Blob }[] };
    result: ImportOutcome[];
  };
  /**
   * A stored run as a bundle (`<id>.flowbench.zip`): its run file with every
   * artifact's bytes and every file its flow names (see core/run/bundle.ts).
   */
  exportRunBundle: { params: { runId: RunId }; result: Blob };
  /**
   * A stored table file's columns (type, missing count) and first rows, for
   * the inspector: parsed here, in the engine, never on the page. A file that
   * does not parse fails with the same error the table node would.
   */
  describeTable: { params: { digest: string; header: HeaderChoice }; result: TablePreview };
  /**
   * A stored `.onnx` file's card for the inspector: its inputs and outputs,
   * opsets, producer, size and operator counts. A file that is not a model
   * fails as the model node would.
   */
  describeModel: { params: { digest: string }; result: ModelCard };
  /**
   * A stored NumPy file's array (`array` of an `.npz`; empty: its first) as
   * `data.tensor` will read it: name, element type and shape, for what the
   * inspector says of a wired tensor before a run. Fails as the node would.
   */
  describeArray: { params: { digest: string; array: string }; result: ArrayCard };
  /**
   * Keep a file a person picked for a file param: read, hashed and stored
   * here, so a file of tens of megabytes costs the page nothing. Resolves
   * with its digest (what the flow names it by).
   */
  storeFile: { params: { file: File }; result: { digest: string } };
  /** A stored file's name and size, or null when this browser does not have it. */
  describeFile: { params: { digest: string }; result: { name: string; size: number } | null };
}
export type EngineCall = keyof EngineCalls;
/** What call `C` takes. */
export type EngineParams<C extends EngineCall> = EngineCalls[C]['params'];
/** What call `C` resolves with. */
export type EngineResult<C extends EngineCall> = EngineCalls[C]['result'];

/** A request for call `C`, with that call's params. */
export interface EngineRequest<C extends EngineCall = EngineCall> {
  id: number;
  call: C;
  params: EngineParams<C>;
}

/** The worker's side: one handler per call, taking its params and resolving with its result. */
export type EngineHandlers = {
  readonly [C in EngineCall]: (params: EngineParams<C>) => Promise<EngineResult<C>>;
};

/** What an imported file turned out to be: a run now stored, or a parsed document for the page. */
export type ImportedFile = { kind: 'run'; runId: RunId } | { kind: 'document'; value: unknown };

/** One file of several imported: what it turned out to be, or why it was refused (nothing of it written). */
export type ImportOutcome = ImportedFile | { kind: 'refused'; error: SerializedError };

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

/** The answer to a request for `C` that succeeded. */
export interface EngineResultReply<C extends EngineCall = EngineCall> {
  type: 'reply';
  id: number;
  call: C;
  ok: true;
  result: EngineResult<C>;
}

/** The answer to a request for `C`: its result, or the error it failed with. */
export type EngineReply<C extends EngineCall = EngineCall> =
  EngineResultReply<C> | { type: 'reply'; id: number; call: C; ok: false; error: SerializedError };

/** Pushed by the worker without a request. */
export type EngineEvent =
  /** `perSecond`: the node's own measure of its rate, where it has one. */
  | {
      type: 'progress';
      runId: RunId;
      node: string;
      done: number;
      total: number;
      perSecond?: number;
    }
  /** A streaming port's latest value, at most one per rate-limit interval. */
  | { type: 'live'; runId: RunId; node: string; port: string; value: number }
  | { type: 'run-finished'; runId: RunId; status: RunStatus }
  /** Driving a run this engine took failed outside its record (its ending could not be stored, most often). */
  | { type: 'run-failed'; runId: RunId; error: SerializedError }
  /** A write of the run's record failed (the storage quota is full, most often); the run is being stopped. */
  | { type: 'storage-failure'; runId: RunId; reason: string }
  /**
   * The run's writes have waited `waitedMs` for the browser's storage, which
   * does not answer; `null` once they answer again.
   */
  | { type: 'storage-stall'; runId: RunId; waitedMs: number | null }
  | PoolEvent;

export type EngineMessage = EngineReply | EngineEvent;

/**
 * The BroadcastChannel every tab's engine listens on, so that engines learn
 * of the queue without polling hard: `queued` (runs wait in the queue; an
 * engine with a free slot takes them) and `cancel` (a tab wrote a cancel
 * request into the run's record; the engine driving it stops it at once).
 */
export const QUEUE_CHANNEL = 'flowbench.queue';

/** A message on `QUEUE_CHANNEL`. */
export type QueueNudge = { type: 'queued' } | { type: 'cancel'; runId: RunId };

/** Answer `request` with the handler for its call; never rejects (a failure is the reply). */
export async function answerRequest<C extends EngineCall>(
  handlers: EngineHandlers,
  request: EngineRequest<C>,
): Promise<EngineReply<C>> {
  const { id, call } = request;
  try {
    const result = await handlers[call](request.params);
    return { type: 'reply', id, call, ok: true, result };
  } catch (error) {
    return { type: 'reply', id, call, ok: false, error: serializeError(error) };
  }
}

/**
 * Send `reply` with `post`; when the structured clone refuses its result (a
 * value nested too deeply to copy, one of a kind it cannot copy), send the
 * call's failure instead, so the page's call settles and says why.
 */
export function sendReply(post: (message: EngineMessage) => void, reply: EngineReply): void {
  try {
    post(reply);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const failure = new FlowbenchError('reply-unsendable', { call: reply.call, reason });
    post({
      type: 'reply',
      id: reply.id,
      call: reply.call,
      ok: false,
      error: serializeError(failure),
    });
  }
}

/** Whether `reply` answers a request for `call`, so its result is that call's. */
export function isResultOf<C extends EngineCall>(
  reply: EngineResultReply,
  call: C,
): reply is EngineResultReply<C> {
  return reply.call === call;
}
