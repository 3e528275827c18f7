/**
 * Fixtures for the data engine's tests: producer hosts whose producers the
 * test watches, slows down or breaks.
 */
import type { EnvironmentSpec } from '../data/environment-spec';
import type { EpisodeData } from '../data/episode';
import type { ProduceRequest, Producer, ProducerHost } from '../data/producer';
import { inProcessProducers } from './producer-host';

/** A producer the test can watch: every request, its signal, and whether it was closed. */
export class WatchedProducer implements Producer {
  readonly requests: ProduceRequest[] = [];
  readonly signals: AbortSignal[] = [];
  closed = false;

  constructor(
    private readonly inner: Producer,
    private readonly behave: (request: ProduceRequest, signal: AbortSignal) => Promise<void>,
  ) {}

  get index(): number {
    return this.inner.index;
  }

  async produce(request: ProduceRequest, signal: AbortSignal): Promise<EpisodeData[]> {
    this.requests.push(request);
    this.signals.push(signal);
    await this.behave(request, signal);
    return this.inner.produce(request, signal);
  }

  close(): void {
    this.closed = true;
    this.inner.close();
  }
}

/**
 * A host over in-process producers that runs `behave` before each request
 * (to delay or fail it) and keeps every producer it made.
 */
export function watchedHost(
  behave: (request: ProduceRequest, signal: AbortSignal, producer: number) => Promise<void> = () =>
    Promise.resolve(),
): ProducerHost & { made: WatchedProducer[] } {
  const made: WatchedProducer[] = [];
  return {
    made,
    where: 'in this thread, watched',
    producers: (environment: EnvironmentSpec, count: number) =>
      inProcessProducers.producers(environment, count).map((inner) => {
        const producer = new WatchedProducer(inner, (r, s) => behave(r, s, inner.index));
        made.push(producer);
        return producer;
      }),
  };
}

/** Resolves never, rejects when `signal` aborts: a producer stuck until stopped. */
export function stuckUntilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((_, reject) =>
    signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true }),
  );
}
