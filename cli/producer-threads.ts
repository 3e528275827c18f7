/**
 * Where a headless run's data engines start their producers: each in a
 * `worker_threads` thread of its own, speaking the same producer protocol as
 * the browser's Web Workers (`workerProducerHost`), so a simulator's
 * rollouts run beside the training loop on another core instead of taking
 * turns with it on one. Trade-off: each thread loads the TypeScript sources
 * anew (a worker thread does not inherit the loader), a few hundred ms per
 * producer at a data engine's start.
 */
import { Worker } from 'node:worker_threads';
import type { ProducerHost } from '../src/core/data/producer';
import { workerProducerHost, type ProducerPort } from '../workers/engine/producers';

/** A worker thread running producer-thread.ts under the TypeScript loader. */
function spawnThread(): ProducerPort {
  const entry = new URL('./producer-thread.ts', import.meta.url).href;
  const thread = new Worker(
    `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`,
    { eval: true },
  );
  return {
    postMessage: (message, transfer) => thread.postMessage(message, transfer as never),
    addEventListener: (type: 'message' | 'error', listener: (event: never) => void) => {
      if (type === 'message') thread.on('message', (data: unknown) => listener({ data } as never));
      else
        thread.on('error', (error: Error) =>
          listener({ message: error.message, preventDefault: () => undefined } as never),
        );
    },
    terminate: () => void thread.terminate(),
  };
}

/** Producers in worker threads, one each. */
export const threadProducers: ProducerHost = {
  ...workerProducerHost(spawnThread),
  where: 'each in a worker thread of its own',
};
