/**
 * Default budgets of the device memory pools.
 *
 * WebGPU reports no total device memory, only per-buffer limits, so the
 * default budget of a WebGPU pool is the adapter's `maxBufferSize` (1 GiB on
 * SwiftShader, a few GiB on discrete GPUs): a conservative share of any
 * device that can hold one such buffer. WASM memory is one linear heap of at
 * most 4 GiB that onnxruntime shares with its own code and arenas, so a WASM
 * pool gets a fixed heap budget of 1 GiB. A person may set either in the
 * pool view. Trade-off: these are guesses that err small; a budget too small
 * fails a step up front with its numbers, which is better than a lost device.
 */
import type { AdapterInfo, Backend } from '../runtime/tensor-runtime.ts';

/** The budget of a WASM pool, in bytes. */
export const WASM_HEAP_BUDGET = 1024 ** 3;
/** The budget of a WebGPU pool when the adapter gives no limits. */
export const GPU_FALLBACK_BUDGET = 1024 ** 3;

/** The default budget, in bytes, of the pool for `backend`; see the module comment. */
export function defaultPoolBudget(backend: Backend, adapter: AdapterInfo | null): number {
  if (backend === 'wasm') return WASM_HEAP_BUDGET;
  return adapter?.limits?.maxBufferSize ?? GPU_FALLBACK_BUDGET;
}
