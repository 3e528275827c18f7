/**
 * Where a headless run's data engines start their producers: each in a
 * `worker_threads` thread of its own, speaking the same producer protocol as
 * the browser's Web Workers (`workerProducerHost`), so a simulator's
 * rollouts run beside the training loop on another core instead of taking
 * turns with it on one. Trade-off: each thread loads the TypeScript sources
 * anew (a worker thread does not inherit the loader), a few hundred ms per
 * producer at a data engine's start.
 */
import type { ProducerHost } from '../src/core/data/producer';
import { workerProducerHost, type ProducerPort } from '../workers/engine/producers';
import { threadPort, tsThread } from './worker-thread';

/** A worker thread running producer-thread.ts, as the engine worker's `Worker`. */
function spawnThread(): ProducerPort {
  return threadPort(tsThread(new URL('./producer-thread.ts', import.meta.url)));
}

/** Producers in worker threads, one each. */
export const threadProducers: ProducerHost = {
  ...workerProducerHost(spawnThread),
  where: 'each in a worker thread of its own',
};
