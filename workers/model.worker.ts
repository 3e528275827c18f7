/**
 * The model worker's entry: the engine worker starts one and runs the
 * sessions of its training loops in it, on onnxruntime WASM threads of its
 * own (see `engine/model-client.ts` for why). Everything with substance
 * lives in `engine/model-host.ts`.
 */
/// <reference lib="webworker" />
import { serveModels } from './engine/model-host';
import { OrtRuntime } from './engine/ort-runtime';
import { engineInfo } from './engine/adapter';
import { modelWorkerThreads, type OrtLoader } from './engine/ort-loader';

declare const self: DedicatedWorkerGlobalScope;

// Threads need shared memory: without cross-origin isolation onnxruntime runs one.
const threads = self.crossOriginIsolated ? modelWorkerThreads(navigator.hardwareConcurrency) : 1;
const load: OrtLoader = async () => {
  const ort = await import('onnxruntime-web/wasm');
  ort.env.logLevel = 'error';
  ort.env.wasm.numThreads = threads;
  return ort;
};

serveModels(self, {
  runtime: new OrtRuntime(engineInfo(null), load, 'wasm'),
  threads,
  locks: navigator.locks,
});
