/**
 * The protocol between the engine worker and its model worker, where the
 * sessions of training loops run on onnxruntime threads of their own.
 *
 * The engine keeps the run (its program, its records, its storage); the
 * model worker keeps sessions and the loops opened on them — a loop's
 * carried tensors (weights, optimizer state) stay there from its first step
 * to its last — and does nothing else: no IndexedDB, no timers. The engine
 * sends a loop's next K steps in one `steps` call (their batches, buffers
 * transferred) and gets back the value of each step's read outputs (the
 * loss) and the batches' buffers, so a hop is paid per K steps, not per
 * step. Every call is answered exactly once, with its result or with the
 * error, code kept. A loop's cancel is a flag in shared memory the worker
 * reads between two steps (null where the page is not cross-origin
 * isolated: the loop then stops at the end of its message).
 */
import type { SerializedError } from '../src/core/errors';
import type { Backend, Tensor } from '../src/core/runtime/tensor-runtime';

/** Every call: its params and its result. */
export interface ModelCalls {
  /**
   * Hold the Web Lock `lock` for as long as this worker lives; answered once
   * it is held. The engine then asks for the same lock, which it gets only
   * when the worker is gone however it went (out of memory, closed), even
   * where the browser says nothing else.
   */
  hold: { params: { lock: string }; result: null };
  /** A WASM session over an ONNX model; `deviceOutputs` stay in the worker between steps. */
  create: {
    params: { model: Uint8Array; deviceOutputs: string[] };
    result: {
      session: number;
      backend: Backend;
      inputNames: string[];
      outputNames: string[];
      /** onnxruntime's WASM threads in the worker. */
      threads: number;
    };
  };
  /** One run, every output back on the CPU (for a caller that does not loop). */
  run: {
    params: { session: number; feeds: Record<string, Tensor> };
    result: Record<string, Tensor>;
  };
  /** Opens a loop on a session (see `StepLoopPlan`). */
  open: {
    params: {
      session: number;
      carried: { input: string; output: string }[];
      initial: Record<string, Tensor>;
      constants: Record<string, Tensor>;
      read: string[];
      /** One Int32; non-zero stops the loop before its next step. */
      cancel: SharedArrayBuffer | null;
    };
    result: { loop: number };
  };
  /**
   * The loop's next steps, each its own feeds or null (a step that runs
   * nothing). The steps come back with the values, their buffers moved back
   * for the engine's next batches.
   */
  steps: {
    params: { loop: number; steps: (Record<string, Tensor> | null)[] };
    result: {
      ran: number;
      values: Record<string, Float32Array>;
      ms: number;
      steps: (Record<string, Tensor> | null)[];
    };
  };
  /** The loop's carried inputs as they are now. */
  carried: { params: { loop: number; inputs: string[] }; result: Record<string, Tensor> };
  close: { params: { loop: number }; result: null };
  /** Lets go of a session and every loop on it. */
  release: { params: { session: number }; result: null };
}
export type ModelCall = keyof ModelCalls;

export type ModelRequest = {
  [C in ModelCall]: { id: number; call: C; params: ModelCalls[C]['params'] };
}[ModelCall];

export type ModelReply = { id: number } & (
  { ok: true; result: ModelCalls[ModelCall]['result'] } | { ok: false; error: SerializedError }
);

/** The buffers of some tensors, each once, to transfer rather than copy. */
export function tensorBuffers(tensors: Iterable<Tensor | null | undefined>): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  for (const tensor of tensors) {
    const buffer = tensor?.data.buffer;
    if (buffer instanceof ArrayBuffer) buffers.add(buffer);
  }
  return [...buffers];
}
