/**
 * The browser's model worker: the sessions of training loops run in a
 * worker of its own (model-client.ts says why), started with the first one.
 * The engine worker hands it to every run's tensor runtime. (Unit tests join
 * the two sides with a `MessageChannel` instead.)
 */
import { ModelWorkerClient } from './model-client';

export const browserModelWorker = new ModelWorkerClient(
  () =>
    new Worker(new URL('../model.worker.ts', import.meta.url), {
      type: 'module',
      name: 'flowbench model',
    }),
  // Its life is watched by a Web Lock it holds: a worker out of memory goes without an event.
  navigator.locks,
);
