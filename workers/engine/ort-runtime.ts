/**
 * onnxruntime-web behind the engine's `TensorRuntime` seam.
 *
 * Backend choice: `auto` uses WebGPU only on a hardware adapter. A software
 * fallback adapter (SwiftShader in a headless browser) is around a hundred
 * times slower than WASM for models of this size, so `auto` takes WASM there;
 * a person can still force `webgpu`. onnxruntime is imported lazily, inside
 * the worker, and only the build for the backend in use is fetched.
 *
 * Device tensors: outputs a session was asked to keep on the device come back
 * as `OrtDeviceTensor`s — on WebGPU an ORT `gpu-buffer` tensor, which feeds
 * the next run without a copy; on WASM the CPU tensor itself. The runtime
 * remembers every device tensor it handed out and disposes what is left when
 * the run ends (`releaseAll`), whatever way it ends, so a failed or cancelled
 * loop cannot leak GPU buffers. Trade-off: a device tensor fed to a session
 * on another backend is downloaded first.
 */
import type * as Ort from 'onnxruntime-web';
import {
  isDeviceTensor,
  type AdapterInfo,
  type Backend,
  type BackendChoice,
  type DeviceTensor,
  type EngineInfo,
  type Feed,
  type Fetched,
  type ModelSession,
  type NodeBackend,
  type SessionOptions,
  type Tensor,
  type TensorRuntime,
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
    limits?: { maxBufferSize?: number; maxStorageBufferBindingSize?: number };
  } | null>;
}

/** The WebGPU adapter this context can get, or null. */
export async function detectAdapter(): Promise<AdapterInfo | null> {
  const gpu = (globalThis.navigator as { gpu?: GpuLike } | undefined)?.gpu;
  if (!gpu) return null;
  try {
    const adapter = await gpu.requestAdapter();
    if (!adapter) return null;
    const { maxBufferSize, maxStorageBufferBindingSize } = adapter.limits ?? {};
    return {
      vendor: adapter.info?.vendor ?? '',
      architecture: adapter.info?.architecture ?? '',
      isFallbackAdapter: adapter.info?.isFallbackAdapter ?? adapter.isFallbackAdapter ?? false,
      ...(maxBufferSize !== undefined &&
        maxStorageBufferBindingSize !== undefined && {
          limits: { maxBufferSize, maxStorageBufferBindingSize },
        }),
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

function fromOrt(tensor: Ort.Tensor, data: unknown = tensor.data): Tensor {
  const type = tensor.type === 'int32' ? 'int32' : 'float32';
  return { type, data: data as Float32Array | Int32Array, dims: [...tensor.dims] };
}

/** An ORT tensor kept where its backend made it; see the module comment. */
class OrtDeviceTensor implements DeviceTensor {
  readonly location = 'device';
  readonly type: Tensor['type'];
  readonly dims: readonly number[];
  private disposed = false;

  constructor(
    readonly tensor: Ort.Tensor,
    readonly backend: Backend,
    private readonly live: Set<OrtDeviceTensor>,
  ) {
    this.type = tensor.type === 'int32' ? 'int32' : 'float32';
    this.dims = [...tensor.dims];
    live.add(this);
  }

  get storage(): 'gpu-buffer' | 'cpu' {
    return this.tensor.location === 'gpu-buffer' ? 'gpu-buffer' : 'cpu';
  }

  /** Whether the data is in a GPU buffer (not CPU memory). */
  get onGpu(): boolean {
    return this.storage === 'gpu-buffer';
  }

  async read(): Promise<Tensor> {
    if (this.disposed) throw new Error('read of a device tensor after dispose()');
    if (!this.onGpu) return fromOrt(this.tensor);
    return fromOrt(this.tensor, await this.tensor.getData());
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.live.delete(this);
    if (this.onGpu) this.tensor.dispose();
  }
}

export class OrtRuntime implements TensorRuntime {
  private readonly modules = new Map<Backend, Promise<OrtModule>>();
  private readonly sessions = new Set<ModelSession>();
  private readonly deviceTensors = new Set<OrtDeviceTensor>();

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

  /** Device tensors handed out and not yet disposed (GPU buffers on WebGPU). */
  get liveDeviceTensors(): number {
    return this.deviceTensors.size;
  }

  /** The backend a node's choice runs on here. */
  backendFor(choice: NodeBackend): Backend {
    if (choice === 'auto') return this.runBackend;
    if (choice === 'prefer-webgpu') return this.info.adapter ? 'webgpu' : 'wasm';
    return OrtRuntime.resolve(choice, this.info);
  }

  async createSession(
    model: Uint8Array,
    choice: NodeBackend,
    options: SessionOptions = {},
  ): Promise<ModelSession> {
    const backend = this.backendFor(choice);
    let module = this.modules.get(backend);
    if (!module) {
      module = this.load(backend);
      this.modules.set(backend, module);
    }
    const ort = await module;
    const deviceOutputs = new Set(options.deviceOutputs ?? []);
    const session = await ort.InferenceSession.create(model, {
      executionProviders: [backend],
      ...(backend === 'webgpu' &&
        deviceOutputs.size > 0 && {
          preferredOutputLocation: Object.fromEntries(
            [...deviceOutputs].map((name) => [name, 'gpu-buffer' as const]),
          ),
        }),
    });
    const sessions = this.sessions;
    const live = this.deviceTensors;
    const toOrt = async (feed: Feed): Promise<Ort.Tensor> => {
      if (feed instanceof OrtDeviceTensor && feed.backend === backend) return feed.tensor;
      const tensor = isDeviceTensor(feed) ? await feed.read() : feed;
      return new ort.Tensor(tensor.type, tensor.data, tensor.dims);
    };
    const handle: ModelSession = {
      backend,
      inputNames: session.inputNames,
      outputNames: session.outputNames,
      async run(feeds) {
        const ortFeeds: Record<string, Ort.Tensor> = {};
        for (const [name, feed] of Object.entries(feeds)) ortFeeds[name] = await toOrt(feed);
        const results = await session.run(ortFeeds);
        const out: Record<string, Fetched> = {};
        for (const [name, tensor] of Object.entries(results))
          out[name] = deviceOutputs.has(name)
            ? new OrtDeviceTensor(tensor, backend, live)
            : fromOrt(tensor);
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

  /** Release every session and device tensor still open (a run ends, whatever way it ends). */
  async releaseAll(): Promise<void> {
    for (const tensor of [...this.deviceTensors]) tensor.dispose();
    await Promise.allSettled([...this.sessions].map((s) => s.release()));
  }
}
