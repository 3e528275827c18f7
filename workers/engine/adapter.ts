/**
 * The WebGPU adapter a context can get, what a run's fingerprint records of
 * it, and what `auto` means given it: WebGPU only on a hardware adapter. A
 * software fallback (SwiftShader in a headless browser) is around a hundred
 * times slower than WASM for models of this size, so `auto` takes WASM there;
 * a person can still force `webgpu`.
 */
import type {
  AdapterDetails,
  AdapterInfo,
  Backend,
  EngineInfo,
} from '../../src/core/runtime/tensor-runtime';
import { fingerprintLimits } from '../../src/core/run/fingerprint';

export interface GpuAdapterLike {
  info?: {
    vendor?: string;
    architecture?: string;
    device?: string;
    description?: string;
    isFallbackAdapter?: boolean;
  };
  isFallbackAdapter?: boolean;
  features?: Iterable<string>;
  limits?: Record<string, unknown> & {
    maxBufferSize?: number;
    maxStorageBufferBindingSize?: number;
  };
}

interface GpuLike {
  requestAdapter(): Promise<GpuAdapterLike | null>;
}

/** What the adapter says of itself beyond what picks a backend: for a run's fingerprint. */
export function adapterDetails(adapter: GpuAdapterLike): AdapterDetails {
  const limits: Record<string, number> = {};
  // GPUSupportedLimits' values are getters on its prototype: read each by name.
  for (const name of fingerprintLimits) {
    const value = adapter.limits?.[name];
    if (typeof value === 'number') limits[name] = value;
  }
  return {
    device: adapter.info?.device ?? '',
    description: adapter.info?.description ?? '',
    features: [...(adapter.features ?? [])],
    limits,
  };
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
      details: adapterDetails(adapter),
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
