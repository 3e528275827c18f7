/**
 * Installs the browser's producer host: from the moment the engine worker
 * imports this module, every data engine starts its producers in workers of
 * their own. (Unit tests never import it; their producers run in-process.)
 */
import { setProducerHost } from '../../src/core/live/producer-host';
import { workerProducerHost } from './producers';

setProducerHost(
  workerProducerHost(
    () =>
      new Worker(new URL('../producer.worker.ts', import.meta.url), {
        type: 'module',
        name: 'flowbench producer',
      }),
  ),
);
