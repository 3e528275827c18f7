/**
 * The GPU bench page: reads the WebGPU adapter and runs each train row in a
 * fresh worker (`gpu-train.worker.ts`), as the app runs onnxruntime in a
 * worker; a fresh one per row because onnxruntime-web fixes its thread
 * count and backend when it first starts.
 */
import {
  GPU_BENCH_GLOBAL,
  type AdapterReport,
  type CeilingReport,
  type GpuBench,
  type LoopReport,
  type TrainReport,
  type WorkerReply,
  type WorkerRequest,
} from './gpu-api';
import type { GpuAdapterLike } from '../../workers/engine/adapter';

async function adapter(): Promise<AdapterReport> {
  const gpu = (navigator as { gpu?: { requestAdapter(): Promise<GpuAdapterLike | null> } }).gpu;
  const found = gpu ? await gpu.requestAdapter() : null;
  const info = found?.info ?? {};
  const isFallbackAdapter = info.isFallbackAdapter ?? found?.isFallbackAdapter ?? false;
  const named = `${info.vendor ?? ''} ${info.architecture ?? ''} ${info.description ?? ''}`;
  return {
    found: found !== null,
    vendor: info.vendor ?? '',
    architecture: info.architecture ?? '',
    device: info.device ?? '',
    description: info.description ?? '',
    isFallbackAdapter,
    fallback: found === null || isFallbackAdapter || /swiftshader/i.test(named),
    features: [...(found?.features ?? [])].sort(),
  };
}

function inWorker<T>(message: WorkerRequest): Promise<T> {
  const worker = new Worker(new URL('./gpu-train.worker.ts', import.meta.url), { type: 'module' });
  return new Promise<T>((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<WorkerReply>) => {
      worker.terminate();
      if (event.data.ok) resolve(event.data.report as T);
      else reject(new Error(event.data.error));
    };
    worker.onerror = (event) => {
      worker.terminate();
      reject(new Error(event.message || 'the bench worker failed to start'));
    };
    worker.postMessage(message);
  });
}

const bench: GpuBench = {
  hardwareConcurrency: navigator.hardwareConcurrency,
  crossOriginIsolated,
  adapter,
  train: (request) => inWorker<TrainReport>({ kind: 'train', request }),
  loop: (request) => inWorker<LoopReport>({ kind: 'loop', request }),
  ceiling: (request) => inWorker<CeilingReport>({ kind: 'ceiling', request }),
};
(window as unknown as Record<string, GpuBench>)[GPU_BENCH_GLOBAL] = bench;
