/**
 * The browser's producer host: every data engine's producers in workers of
 * their own, so a simulator's rollouts never hold up the engine worker's
 * message loop. The engine worker hands it to the run service and the parity
 * check, as it hands them the tensor runtime; spawning waits until a data
 * engine asks for producers. (Unit tests run producers in-process instead.)
 */
import type { ProducerHost } from '../../src/core/data/producer';
import { workerProducerHost } from './producers';

export const browserProducers: ProducerHost = workerProducerHost(
  () =>
    new Worker(new URL('../producer.worker.ts', import.meta.url), {
      type: 'module',
      name: 'flowbench producer',
    }),
);
