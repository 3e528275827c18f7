/**
 * The model worker under Node: a `worker_threads` thread that serves the
 * model protocol with the product's own `serveModels` over onnxruntime-web
 * (WASM) on `modelWorkerThreads` threads, as `workers/model.worker.ts` does
 * in the browser. Node's `MessagePort` is an event target with
 * `MessageEvent`s, so it is the worker scope as is.
 */
import { availableParallelism } from 'node:os';
import { parentPort } from 'node:worker_threads';
import * as ort from 'onnxruntime-web';
import { serveModels, type ModelScope } from '../../workers/engine/model-host';
import { OrtRuntime } from '../../workers/engine/ort-runtime';
import { engineInfo } from '../../workers/engine/adapter';
import { modelWorkerThreads } from '../../workers/engine/ort-loader';

if (!parentPort) throw new Error('model-thread.ts runs only as a worker thread');
const threads = modelWorkerThreads(availableParallelism());
ort.env.wasm.numThreads = threads;
ort.env.logLevel = 'error';
serveModels(parentPort as unknown as ModelScope, {
  runtime: new OrtRuntime(engineInfo(null), () => Promise.resolve(ort), 'wasm'),
  threads,
});
