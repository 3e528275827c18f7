/**
 * Producers behind the producer protocol, under Node: the engine's
 * `WorkerProducer` and the worker's `serveProducer` joined by a
 * `MessageChannel`, so every message really crosses a port (with its buffers
 * transferred) as it does between workers.
 */
import { describe, expect, it, vi } from 'vitest';
import { DataEngine } from '../../src/core/data/data-engine';
import { systemClock } from '../../src/core/data/clock';
import { engineConfig } from '../../src/core/data/testing';
import { createRandom } from '../../src/core/random';
import type { EnvironmentSpec } from '../../src/core/data/environment-spec';
import { createEnvironmentProducer, environmentSpec } from '../../src/core/live/environment';
import type { ProducerReply, ProducerRequest } from '../producer-protocol';
import { serveProducer, workerProducerHost, WorkerProducer, type ProducerPort } from './producers';

const pendulum = environmentSpec('pendulum', {
  num_envs: 4,
  episode_length: 20,
  policy: 'random',
  seed: 3,
});

/** A producer "worker": `serveProducer` on the far end of a channel; it can be made to die. */
class ChannelWorker implements ProducerPort {
  terminated = false;
  /** Every reply the worker sent. */
  readonly replies: ProducerReply[] = [];
  private readonly channel = new MessageChannel();
  private readonly onError: ((event: ErrorEvent) => void)[] = [];

  constructor() {
    serveProducer(this.channel.port2);
    this.channel.port1.addEventListener('message', (event) => {
      this.replies.push((event as MessageEvent<ProducerReply>).data);
    });
    this.channel.port1.start();
    this.channel.port2.start();
  }

  /** Every request the engine sent. */
  readonly requests: ProducerRequest[] = [];

  postMessage(message: ProducerRequest, transfer: Transferable[] = []): void {
    this.requests.push(message);
    this.channel.port1.postMessage(message, transfer);
  }

  addEventListener(type: 'message', listener: (event: MessageEvent<ProducerReply>) => void): void;
  addEventListener(type: 'error', listener: (event: ErrorEvent) => void): void;
  addEventListener(
    type: 'message' | 'error',
    listener: ((event: MessageEvent<ProducerReply>) => void) | ((event: ErrorEvent) => void),
  ): void {
    if (type === 'message')
      this.channel.port1.addEventListener('message', listener as (event: MessageEvent) => void);
    else this.onError.push(listener as (event: ErrorEvent) => void);
  }

  terminate(): void {
    this.terminated = true;
    this.channel.port1.close();
    this.channel.port2.close();
  }

  /** What a worker's `error` event says when its script throws uncaught. */
  die(message: string): void {
    const event = { message, preventDefault: () => undefined } as ErrorEvent;
    for (const listener of this.onError) listener(event);
  }
}

const request = (generation: number, count: number) => ({ generation, count });
const live = () => new AbortController().signal;

describe('WorkerProducer over the producer protocol', () => {
  it('gives exactly the episodes the same producer gives in-process', async () => {
    const worker = new ChannelWorker();
    const producer = new WorkerProducer(1, pendulum, worker);
    const viaWorker = await producer.produce(request(2, 6), live());
    const inProcess = await createEnvironmentProducer(pendulum, 1).produce(request(2, 6), live());
    expect(viaWorker).toHaveLength(6);
    expect(viaWorker).toEqual(inProcess);
    expect(viaWorker[0]!.observations).toBeInstanceOf(Float32Array);
    producer.close();
    expect(worker.terminated).toBe(true);
  });

  it('packs episodes that ended early into one reply and gives them back exactly', async () => {
    // Random pushes drop the pole within a few dozen steps: every episode has its own length.
    const cartpole = environmentSpec('cartpole', {
      num_envs: 8,
      episode_length: 200,
      policy: 'random',
      seed: 5,
    });
    const worker = new ChannelWorker();
    const producer = new WorkerProducer(0, cartpole, worker);
    const viaWorker = await producer.produce(request(1, 16), live());
    const inProcess = await createEnvironmentProducer(cartpole, 0).produce(request(1, 16), live());
    expect(new Set(inProcess.map((e) => e.length)).size).toBeGreaterThan(1);
    expect(inProcess.every((e) => e.terminated)).toBe(true);
    expect(viaWorker).toEqual(inProcess);
    // One reply carried all sixteen, packed end to end.
    const reply = worker.replies[0]!;
    expect(reply.type === 'episodes' && reply.episodes.lengths.length).toBe(16);
    producer.close();
  });

  it('sends the buffers of released episodes back once, and produces exactly after', async () => {
    const worker = new ChannelWorker();
    const producer = new WorkerProducer(0, pendulum, worker);
    const first = await producer.produce(request(1, 6), live());
    producer.release(first);
    producer.release(first); // a second release of the same episodes sends nothing
    producer.release(await createEnvironmentProducer(pendulum, 0).produce(request(1, 6), live())); // not its own
    expect(worker.requests.filter((r) => r.type === 'recycle')).toHaveLength(1);
    // The buffers went back: the released episodes are empty, not silently someone else's.
    expect(first[0]!.observations).toHaveLength(0);
    const second = await producer.produce(request(2, 6), live());
    expect(second).toEqual(
      await createEnvironmentProducer(pendulum, 0).produce(request(2, 6), live()),
    );
    producer.close();
  });

  it('a data engine gives each producer back its spent shares', async () => {
    const workers = [new ChannelWorker(), new ChannelWorker()];
    let next = 0;
    const engine = new DataEngine({
      config: engineConfig({
        buffer_size: 4,
        episode_sample_budget: 1,
        episode_sample_hard_limit: 1,
      }),
      producers: workerProducerHost(() => workers[next++]!).producers(pendulum, 2),
      clock: systemClock,
    });
    engine.requestRefill();
    await engine.settled();
    const random = createRandom(1);
    for (let i = 0; i < 4; i++) engine.serve(random, { contextLength: 2, predictionLength: 1 });
    expect(workers.map((w) => w.requests.map((r) => r.type))).toEqual([['produce'], ['produce']]);
    engine.requestRefill();
    await engine.settled();
    expect(workers.map((w) => w.requests.map((r) => r.type))).toEqual([
      ['produce', 'produce', 'recycle'],
      ['produce', 'produce', 'recycle'],
    ]);
    engine.close();
  });

  it("rejects with the producer's own error when producing throws in the worker", async () => {
    const broken = { ...pendulum, simulator: 'unicycle' } as unknown as EnvironmentSpec;
    const producer = new WorkerProducer(0, broken, new ChannelWorker());
    await expect(producer.produce(request(1, 2), live())).rejects.toThrow(
      "unknown simulator 'unicycle'",
    );
    producer.close();
  });

  it('fails everything in flight and everything after when its worker dies', async () => {
    const worker = new ChannelWorker();
    const producer = new WorkerProducer(0, pendulum, worker);
    const pending = producer.produce(request(1, 4000), live());
    worker.die('out of memory');
    await expect(pending).rejects.toThrow('its worker died: out of memory');
    await expect(producer.produce(request(2, 1), live())).rejects.toThrow(
      'its worker died: out of memory',
    );
    producer.close();
  });

  it('a dead worker fails the data engine with the producer error, not a hang', async () => {
    const workers = [new ChannelWorker(), new ChannelWorker()];
    let next = 0;
    const host = workerProducerHost(() => workers[next++]!);
    const engine = new DataEngine({
      config: engineConfig({ buffer_size: 4000 }),
      producers: host.producers(pendulum, 2),
      clock: systemClock,
    });
    engine.requestRefill();
    workers[1]!.die('the tab ran out of memory');
    await engine.settled();
    expect(engine.failure?.message).toBe(
      'Producer 1 failed while producing generation 1: its worker died: the tab ran out of memory',
    );
    expect(() => engine.assertHealthy()).toThrow(engine.failure!);
    engine.close();
    expect(workers.map((w) => w.terminated)).toEqual([true, true]);
  });

  it('a cancel rejects at once and stops the work in the worker', async () => {
    const worker = new ChannelWorker();
    const producer = new WorkerProducer(0, pendulum, worker);
    const abort = new AbortController();
    const pending = producer.produce(request(1, 100_000), abort.signal);
    abort.abort();
    await expect(pending).rejects.toMatchObject({ code: 'cancelled' });
    // The worker stopped the rollouts and said so (an answer nobody waits for any more).
    await vi.waitFor(() =>
      expect(worker.replies).toEqual([
        {
          type: 'failed',
          id: 1,
          error: { code: 'cancelled', data: {}, message: 'The run was cancelled' },
        },
      ]),
    );
    await expect(producer.produce(request(2, 2), live())).resolves.toHaveLength(2);
    producer.close();
  });

  it('close rejects what is in flight and terminates the worker', async () => {
    const worker = new ChannelWorker();
    const producer = new WorkerProducer(0, pendulum, worker);
    const pending = producer.produce(request(1, 100_000), live());
    producer.close();
    await expect(pending).rejects.toThrow('Producer 0 is closed');
    expect(worker.terminated).toBe(true);
    await expect(producer.produce(request(2, 1), live())).rejects.toThrow('Producer 0 is closed');
  });
});
