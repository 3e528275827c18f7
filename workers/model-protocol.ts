/**
 * The protocol between the engine worker and its model worker, where
 * onnxruntime runs.
 *
 * The engine keeps the run (its program, its records, its storage); the model
 * worker keeps the sessions and the tensors they leave on the device, and
 * does nothing else — no IndexedDB, no timers of its own. The engine names
 * them by number: a runtime (one per run) owns its sessions and device
 * tensors, and `releaseAll` lets go of all of them at once. Every call is
 * answered exactly once, with its result or with the error, code kept;
 * disposals are told, not answered. Messages on one port arrive in order,
 * so a tensor disposed before a run is gone for that run.
 */
import type {
  Backend,
  EngineInfo,
  NodeBackend,
  Tensor,
  DeviceTensor,
} from '../src/core/engine/runtime';
import type { SerializedError } from './protocol';

/** A feed: CPU data (in a buffer of its own, transferred), or a device tensor the model worker holds. */
export type WireFeed = { tensor: Tensor } | { device: number };

/** An output: CPU data (its buffer transferred), or a device tensor left in the model worker. */
export type WireFetched =
  | { tensor: Tensor }
  | { device: number; storage: DeviceTensor['storage']; type: Tensor['type']; dims: number[] };

/** Every call: its params and its result. */
export interface ModelCalls {
  /**
   * Hold the Web Lock `lock` for as long as this worker lives; answered once
   * it is held. The engine then asks for the same lock, which it gets only
   * when the worker is gone however it went (a crash, out of memory, closed),
   * even where the browser says nothing else.
   */
  hold: { params: { lock: string }; result: null };
  /** A session over an ONNX model, for `runtime` (made on first use from `info` and `runBackend`). */
  create: {
    params: {
      runtime: number;
      info: EngineInfo;
      runBackend: Backend;
      model: Uint8Array;
      choice: NodeBackend;
      deviceOutputs: string[];
    };
    result: { session: number; backend: Backend; inputNames: string[]; outputNames: string[] };
  };
  run: {
    params: { session: number; feeds: Record<string, WireFeed> };
    result: Record<string, WireFetched>;
  };
  /** A device tensor's data, downloaded; the tensor stays. */
  read: { params: { tensor: number }; result: Tensor };
  release: { params: { session: number }; result: null };
  /** Every session and device tensor of `runtime` (its run has ended, whatever way). */
  releaseAll: { params: { runtime: number }; result: null };
}
export type ModelCall = keyof ModelCalls;

/**
 * A call, or `dispose` alone when no call follows soon. Either carries the
 * device tensors the engine is done with since its last message (`dispose`),
 * let go of before the call: a training loop drops last step's weights
 * every step, and a message of their own each would cost more than the
 * step's own call.
 */
export type ModelRequest = { dispose?: number[] } & (
  | { [C in ModelCall]: { id: number; call: C; params: ModelCalls[C]['params'] } }[ModelCall]
  | { id?: undefined; call: 'dispose'; params?: undefined }
);

/**
 * An answer. `buffers` gives back, transferred, the buffers a `run`'s CPU
 * feeds came in: onnxruntime copied them in when the run started, and the
 * engine writes its next feeds into them (fresh memory costs a page fault
 * per page on first write, which on a virtual machine cost a training step
 * of the examples' MLP about a fifth of its time).
 */
export type ModelReply = { id: number; buffers?: ArrayBuffer[] } & (
  { ok: true; result: ModelCalls[ModelCall]['result'] } | { ok: false; error: SerializedError }
);
