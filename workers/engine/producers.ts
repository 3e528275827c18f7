/**
 * Producers in Web Workers. `WorkerProducer` is the engine worker's side: a
 * `Producer` whose episodes come from a worker over the producer protocol.
 * `serveProducer` is the worker's side: it runs the simulator for each
 * request and answers. Both take a port, not a `Worker`, so unit tests under
 * Node connect them with a `MessageChannel` and exercise the real protocol.
 *
 * A producer fails loudly: an error thrown in the worker comes back as the
 * rejection of that request, with its message; a worker that dies (an
 * uncaught error, a script that cannot load) rejects every request in
 * flight and every later one, so the data engine fails the run with the
 * producer's error instead of waiting for episodes that will never come.
 * `close` terminates the worker; nothing of a producer outlives its run.
 *
 * Memory goes round: a reply's buffers are transferred to the engine, and
 * `release` transfers them back once the engine has spent those episodes,
 * so the worker writes its next reply into pages it already has instead of
 * fresh ones (see `BufferPool`).
 */
import { BufferPool } from '../../src/core/data/buffer-pool';
import type { EpisodeData } from '../../src/core/data/episode';
import { unpackEpisodes } from '../../src/core/data/packed-episodes';
import type { ProduceRequest, Producer, ProducerHost } from '../../src/core/data/producer';
import { throttledYield } from '../../src/core/engine/executor';
import { runCancelled } from '../../src/core/runtime/cancel';
import { FlowbenchError, reviveError, serializeError } from '../../src/core/errors';
import type { EnvironmentSpec } from '../../src/core/data/environment-spec';
import { createEnvironmentProducer } from '../../src/core/live/environment';
import { packedBuffers, type ProducerReply, type ProducerRequest } from '../producer-protocol';
import { messageTurn } from './message-turn';

/** The engine's end of a producer worker (a `Worker`, or a `MessagePort` in tests). */
export interface ProducerPort {
  postMessage(message: ProducerRequest, transfer?: Transferable[]): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<ProducerReply>) => void): void;
  addEventListener(type: 'error', listener: (event: ErrorEvent) => void): void;
  terminate(): void;
}

/** The worker's end: its global scope, or a `MessagePort` in tests. */
export interface ProducerScope {
  postMessage(message: ProducerReply, options: { transfer: Transferable[] }): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<ProducerRequest>) => void): void;
}

/** The buffers behind each reply's episodes, until they are released. */
type ReplyBuffers = WeakMap<readonly EpisodeData[], ArrayBuffer[]>;

interface Pending {
  resolve(episodes: EpisodeData[]): void;
  reject(error: Error): void;
}

export class WorkerProducer implements Producer {
  private readonly pending = new Map<number, Pending>();
  private readonly buffers: ReplyBuffers = new WeakMap();
  private nextId = 0;
  private dead: Error | null = null;
  private closed = false;

  constructor(
    readonly index: number,
    private readonly environment: EnvironmentSpec,
    private readonly port: ProducerPort,
  ) {
    port.addEventListener('message', (event) => this.answer(event.data));
    port.addEventListener('error', (event) => {
      event.preventDefault(); // handled here: it fails the run, it is not an uncaught page error
      this.die(
        new FlowbenchError('producer-worker-died', { reason: event.message || 'no message' }),
      );
    });
  }

  produce(request: ProduceRequest, signal: AbortSignal): Promise<EpisodeData[]> {
    if (this.dead) return Promise.reject(this.dead);
    if (this.closed) return Promise.reject(new Error(`Producer ${this.index} is closed`));
    if (signal.aborted) return Promise.reject(runCancelled());
    const id = ++this.nextId;
    return new Promise<EpisodeData[]>((resolve, reject) => {
      const onAbort = () => {
        this.pending.delete(id);
        this.port.postMessage({ type: 'cancel', id });
        reject(runCancelled());
      };
      signal.addEventListener('abort', onAbort, { once: true });
      const settle = () => signal.removeEventListener('abort', onAbort);
      this.pending.set(id, {
        resolve: (episodes) => {
          settle();
          resolve(episodes);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      this.port.postMessage({
        type: 'produce',
        id,
        environment: this.environment,
        producer: this.index,
        generation: request.generation,
        count: request.count,
      });
    });
  }

  /** Send a reply's buffers back to the worker; its episodes are empty from now on. */
  release(episodes: readonly EpisodeData[]): void {
    const buffers = this.buffers.get(episodes);
    if (!buffers) return; // not ours, or released already
    this.buffers.delete(episodes);
    if (this.dead || this.closed) return;
    this.port.postMessage({ type: 'recycle', buffers }, buffers);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.port.terminate();
    this.failPending(new Error(`Producer ${this.index} is closed`));
  }

  private answer(reply: ProducerReply): void {
    const pending = this.pending.get(reply.id);
    if (!pending) return; // cancelled: nobody waits for it
    this.pending.delete(reply.id);
    if (reply.type === 'episodes') {
      const episodes = unpackEpisodes(reply.episodes);
      this.buffers.set(episodes, packedBuffers(reply.episodes));
      pending.resolve(episodes);
    } else pending.reject(reviveError(reply.error));
  }

  private die(error: Error): void {
    this.dead ??= error;
    this.failPending(error);
  }

  private failPending(error: Error): void {
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) p.reject(error);
  }
}

/** How often a producer lets a `cancel` in, at most: often enough to stop promptly, rarely enough to cost nothing. */
const YIELD_EVERY_MS = 10;

/** Serve producer requests on `scope` until the worker is terminated. */
export function serveProducer(scope: ProducerScope): void {
  const inFlight = new Map<number, AbortController>();
  const pool = new BufferPool();
  scope.addEventListener('message', (event) => {
    const request = event.data;
    if (request.type === 'cancel') {
      inFlight.get(request.id)?.abort();
      return;
    }
    if (request.type === 'recycle') {
      pool.give(request.buffers);
      return;
    }
    const abort = new AbortController();
    inFlight.set(request.id, abort);
    void (async () => {
      try {
        const producer = createEnvironmentProducer(
          request.environment,
          request.producer,
          throttledYield(() => performance.now(), messageTurn, YIELD_EVERY_MS),
        );
        const packed = await producer.producePacked(request, abort.signal, pool);
        const transfer = packedBuffers(packed);
        scope.postMessage({ type: 'episodes', id: request.id, episodes: packed }, { transfer });
      } catch (error) {
        const reply = { type: 'failed', id: request.id, error: serializeError(error) } as const;
        scope.postMessage(reply, { transfer: [] });
      } finally {
        inFlight.delete(request.id);
      }
    })();
  });
}

/** A producer host that starts each producer in a worker made by `spawn`. */
export function workerProducerHost(spawn: () => ProducerPort): ProducerHost {
  return {
    where: 'each in a Web Worker of its own',
    producers: (environment, count) => {
      const producers: WorkerProducer[] = [];
      try {
        for (let index = 0; index < count; index++)
          producers.push(new WorkerProducer(index, environment, spawn()));
      } catch (error) {
        for (const producer of producers) producer.close();
        throw error;
      }
      return producers;
    },
  };
}
