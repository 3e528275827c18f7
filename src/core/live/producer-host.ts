/**
 * Producers in the calling thread: the producer host of unit tests, benches
 * and any engine that does not start workers of its own. The engine worker
 * passes a host that puts each producer in a Web Worker instead
 * (workers/engine/producer-workers.ts); a data engine cannot tell the two
 * apart, since both hand it `Producer`s. Whoever runs a flow chooses the host
 * and passes it to the executor, as it passes the tensor runtime.
 */
import type { ProducerHost } from '../data/producer';
import { createEnvironmentProducer } from './environment';

const macrotask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** Producers in the calling thread; they yield a macrotask between rollouts so a cancel gets in. */
export const inProcessProducers: ProducerHost = {
  where: 'in this thread',
  producers: (environment, count) =>
    Array.from({ length: count }, (_, index) =>
      createEnvironmentProducer(environment, index, macrotask),
    ),
};
