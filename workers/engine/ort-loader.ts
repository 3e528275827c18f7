/**
 * How onnxruntime-web is loaded: one lazily fetched build per backend, and
 * how many WASM threads it runs in the engine and in the model worker.
 */
import type * as Ort from 'onnxruntime-web';
import type { Backend } from '../../src/core/runtime/tensor-runtime';

export type OrtModule = typeof Ort;
export type OrtLoader = (backend: Backend) => Promise<OrtModule>;

/**
 * onnxruntime's WASM threads, in the engine and in the bench that measures it.
 *
 * One. With a second thread (ORT's thread pool runs in a worker of its own,
 * sharing memory with the engine worker) Chromium stopped answering the
 * engine's IndexedDB transactions part-way through a run, for good, when the
 * machine was busy: about one run in three of the default example with two
 * background processes on two cores, none in 32 with one thread. The run
 * then never ended and every write to its stores, from any tab, waited behind
 * it. A run that always ends is worth more than the second core, which gave
 * the examples' MLP about a fifth more training speed on two cores.
 *
 * onnxruntime in a worker of its own, which the engine never waits on, ended
 * all of 24 runs with two threads under the same load, but cost a message
 * each way per session run: the default example trained 2–3.5× slower on a
 * 2-core virtual machine. So the threads came back there for training loops
 * only, whose steps go over K per message (model-client.ts,
 * `modelWorkerThreads`); what stays in the engine worker keeps one thread.
 */
export const WASM_THREADS = 1;

/**
 * onnxruntime's WASM threads in the model worker, for `hardwareConcurrency`
 * cores: one core is left to the page and the engine, but never fewer than
 * two threads on a machine with two cores or more (the engine only waits on
 * the model worker while a loop trains), and at most four (onnxruntime's own
 * default ceiling: the models here gain nothing past it).
 */
export function modelWorkerThreads(hardwareConcurrency: number | undefined): number {
  const cores = Math.floor(hardwareConcurrency ?? 1);
  if (!Number.isFinite(cores) || cores <= 1) return 1;
  return Math.min(4, Math.max(2, cores - 1));
}

/**
 * onnxruntime-web in a browser, its build for `backend` fetched when first
 * asked for, on `threads` WASM threads (the bench's GPU page sets its own).
 */
export async function loadBrowserOrt(backend: Backend, threads: number): Promise<OrtModule> {
  const ort: OrtModule =
    backend === 'webgpu'
      ? await import('onnxruntime-web/webgpu')
      : await import('onnxruntime-web/wasm');
  ort.env.logLevel = 'error';
  ort.env.wasm.numThreads = threads;
  return ort;
}

/** The engine worker's loader: one lazily fetched build per backend, `WASM_THREADS` threads. */
export const browserOrtLoader: OrtLoader = (backend) => loadBrowserOrt(backend, WASM_THREADS);
