/**
 * The model worker under Node: a `worker_threads` thread that serves the
 * model protocol with the product's own `serveModels` over onnxruntime-web
 * (WASM), as `workers/model.worker.ts` does in the browser, on the same
 * number of threads.
 */
import { availableParallelism } from 'node:os';
import { parentPort } from 'node:worker_threads';
import * as ort from 'onnxruntime-web';
import { serveModels, type ModelScope } from '../../workers/engine/model-host';
import { OrtRuntime, wasmThreads } from '../../workers/engine/ort-runtime';
import { noLocks } from './threads';

if (!parentPort) throw new Error('model-thread.ts runs only as a worker thread');
ort.env.wasm.numThreads = wasmThreads(availableParallelism());
ort.env.logLevel = 'error';
serveModels(
  parentPort as unknown as ModelScope,
  (info, runBackend) => new OrtRuntime(info, () => Promise.resolve(ort), runBackend),
  noLocks,
);
