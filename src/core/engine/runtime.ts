/**
 * The tensor runtime as the engine sees it: sessions over ONNX models on a
 * backend. Core defines the shape; the worker supplies onnxruntime-web, and
 * unit tests supply the same library under Node. Keeping the runtime behind
 * this seam is what lets the engine stay pure TypeScript.
 */

export type Backend = 'webgpu' | 'wasm';
export type BackendChoice = 'auto' | Backend;
export const backendChoices: readonly BackendChoice[] = ['auto', 'webgpu', 'wasm'];
/**
 * Where one node's sessions run: a run-level choice, or `prefer-webgpu` —
 * WebGPU on any adapter (even a software one), WASM when there is none.
 * A node set to `webgpu` *requires* it: its run waits for an engine that has it.
 */
export type NodeBackend = BackendChoice | 'prefer-webgpu';
export const nodeBackends = ['auto', 'webgpu', 'prefer-webgpu', 'wasm'] as const;

export interface Tensor {
  type: 'float32' | 'int32';
  data: Float32Array | Int32Array;
  dims: readonly number[];
}

export interface ModelSession {
  /** The backend this session actually runs on. */
  readonly backend: Backend;
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  run(feeds: Readonly<Record<string, Tensor>>): Promise<Record<string, Tensor>>;
  release(): Promise<void>;
}

/** What the engine knows of the device it runs on. */
export interface EngineInfo {
  /** The backend `auto` resolves to on this engine. */
  backend: Backend;
  /** The WebGPU adapter, when there is one. */
  adapter: AdapterInfo | null;
}

export interface AdapterInfo {
  vendor: string;
  architecture: string;
  isFallbackAdapter: boolean;
}

export interface TensorRuntime {
  readonly info: EngineInfo;
  /** `auto` follows the run; a forced backend that is missing fails with a clear error. */
  createSession(model: Uint8Array, backend: NodeBackend): Promise<ModelSession>;
}

export function float32(data: Float32Array, dims: readonly number[]): Tensor {
  return { type: 'float32', data, dims };
}

/** Describe an engine for a run record, e.g. "webgpu (nvidia ampere)". */
export function describeAdapter(adapter: AdapterInfo | null): string {
  if (!adapter) return 'none';
  const name = [adapter.vendor, adapter.architecture].filter(Boolean).join(' ') || 'unknown';
  return adapter.isFallbackAdapter ? `${name} (fallback)` : name;
}
