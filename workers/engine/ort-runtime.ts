/**
 * onnxruntime-web behind the engine's `TensorRuntime` seam.
 *
 * Backend choice: `auto` uses WebGPU only on a hardware adapter. A software
 * fallback adapter (SwiftShader in a headless browser) is around a hundred
 * times slower than WASM for models of this size, so `auto` takes WASM there;
 * a person can still force `webgpu`. onnxruntime is imported lazily, inside
 * the worker, and only the build for the backend in use is fetched.
 */
import type * as Ort from 'onnxruntime-web';
import type {
  AdapterInfo,
  Backend,
  BackendChoice,
  EngineInfo,
  ModelSession,
  NodeBackend,
  Tensor,
  TensorRuntime,
} from '../../src/core/engine/runtime';

export type OrtModule = typeof Ort;
export type OrtLoader = (backend: Backend) => Promise<OrtModule>;

export class BackendUnavailableError extends Error {
  readonly code = 'backend-unavailable';
  override name = 'BackendUnavailableError';
}

interface GpuLike {
  requestAdapter(): Promise<{
    info?: { vendor?: string; architecture?: string; isFallbackAdapter?: boolean };
    isFallbackAdapter?: boolean;
  } | null>;
}

/** The WebGPU adapter this context can get, or null. */
export async function detectAdapter(): Promise<AdapterInfo | null> {
  const gpu = (globalThis.navigator as { gpu?: GpuLike } | undefined)?.gpu;
  if (!gpu) return null;
  try {
    const adapter = await gpu.requestAdapter();
    if (!adapter) return null;
    return {
      vendor: adapter.info?.vendor ?? '',
      architecture: adapter.info?.architecture ?? '',
      isFallbackAdapter: adapter.info?.isFallbackAdapter ?? adapter.isFallbackAdapter ?? false,
    };
  } catch {
    return null;
  }
}

/** What `auto` means given an adapter. */
export function autoBackend(adapter: AdapterInfo | null): Backend {
  return adapter && !adapter.isFallbackAdapter ? 'webgpu' : 'wasm';
}

export function engineInfo(adapter: AdapterInfo | null): EngineInfo {
  return { backend: autoBackend(adapter), adapter };
}

/** The browser loader: one lazily fetched build per backend. */
export const browserOrtLoader: OrtLoader = async (backend) => {
  const ort: OrtModule =
    backend === 'webgpu'
      ? await import('onnxruntime-web/webgpu')
      : await import('onnxruntime-web/wasm');
  ort.env.logLevel = 'error';
  const cores = navigator.hardwareConcurrency || 1;
  // Threads need SharedArrayBuffer, which only cross-origin isolated pages get.
  ort.env.wasm.numThreads = globalThis.crossOriginIsolated ? Math.min(4, cores) : 1;
  return ort;
};

function toOrt(ort: OrtModule, tensor: Tensor): Ort.Tensor {
  return new ort.Tensor(tensor.type, tensor.data, tensor.dims);
}

function fromOrt(tensor: Ort.Tensor): Tensor {
  const type = tensor.type === 'int32' ? 'int32' : 'float32';
  const data = tensor.data as Float32Array | Int32Array;
  return { type, data, dims: [...tensor.dims] };
}

export class OrtRuntime implements TensorRuntime {
  private readonly modules = new Map<Backend, Promise<OrtModule>>();
  private readonly sessions = new Set<ModelSession>();

  constructor(
    readonly info: EngineInfo,
    private readonly load: OrtLoader,
    /** The backend `auto` resolves to for this run. */
    private readonly runBackend: Backend,
  ) {}

  /** Resolve a run's backend choice against what this engine has. */
  static resolve(choice: BackendChoice, info: EngineInfo): Backend {
    if (choice === 'auto') return info.backend;
    if (choice === 'webgpu' && !info.adapter)
      throw new BackendUnavailableError(
        'WebGPU was chosen but this browser gives no WebGPU adapter; choose auto or wasm',
      );
    return choice;
  }

  async createSession(model: Uint8Array, choice: NodeBackend): Promise<ModelSession> {
    const backend =
      choice === 'auto'
        ? this.runBackend
        : choice === 'prefer-webgpu'
          ? this.info.adapter
            ? 'webgpu'
            : 'wasm'
          : OrtRuntime.resolve(choice, this.info);
    let module = this.modules.get(backend);
    if (!module) {
      module = this.load(backend);
      this.modules.set(backend, module);
    }
    const ort = await module;
    const session = await ort.InferenceSession.create(model, { executionProviders: [backend] });
    const sessions = this.sessions;
    const handle: ModelSession = {
      backend,
      inputNames: session.inputNames,
      outputNames: session.outputNames,
      async run(feeds) {
        const ortFeeds: Record<string, Ort.Tensor> = {};
        for (const [name, tensor] of Object.entries(feeds)) ortFeeds[name] = toOrt(ort, tensor);
        const results = await session.run(ortFeeds);
        const out: Record<string, Tensor> = {};
        for (const [name, tensor] of Object.entries(results)) out[name] = fromOrt(tensor);
        return out;
      },
      async release() {
        sessions.delete(handle);
        await session.release();
      },
    };
    sessions.add(handle);
    return handle;
  }

  /** Release every session still open (a run ends, whatever way it ends). */
  async releaseAll(): Promise<void> {
    await Promise.allSettled([...this.sessions].map((s) => s.release()));
  }
}
