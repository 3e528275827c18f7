import { describe, expect, it } from 'vitest';
import { createRandom } from '../random';
import { DataEngine, splitShares } from './data-engine';
import { FakeClock } from './fake-clock';
import type { Producer } from './producer';
import { engineConfig, ScriptedProducer, setupEngine } from './testing';

const window = { contextLength: 2, predictionLength: 1 };

describe('DataEngine generations', () => {
  it('lands a refill as one whole cache, only once every producer has delivered', async () => {
    const { engine, producers, clock } = setupEngine({
      producers: (i) => ({ latencyMs: i === 0 ? 100 : 500 }),
    });
    expect(engine.requestRefill()).toBe(1);
    expect(producers.map((p) => p.requests)).toEqual([
      [{ generation: 1, count: 2 }],
      [{ generation: 1, count: 2 }],
    ]);
    await clock.advance(200); // producer 0 is done, producer 1 is not
    expect(engine.cache.size).toBe(0);
    expect(engine.generationState(1)).toBe('pending');
    await clock.advance(300);
    expect(engine.generationState(1)).toBe('ready');
    expect(engine.cache.episodes().map((e) => [e.generation, e.producer])).toEqual([
      [1, 0],
      [1, 0],
      [1, 1],
      [1, 1],
    ]);
    expect(engine.cache.unlockedRemainingChunks()).toBe(8);
  });

  it('coalesces requests while a refill is pending into the pending generation', async () => {
    const { engine, producers, clock } = setupEngine();
    expect(engine.requestRefill()).toBe(1);
    expect(engine.requestRefill()).toBe(1);
    expect(engine.requestRefill()).toBe(1);
    expect(producers.map((p) => p.requests.length)).toEqual([1, 1]);
    await clock.drive(engine.settled());
    expect(engine.requestRefill()).toBe(2);
    expect(producers.map((p) => p.requests.length)).toEqual([2, 2]);
  });

  it('does not start a refill that would overrun max_generated_episodes, nor a partial one', async () => {
    const { engine, producers, clock, telemetry } = setupEngine({
      config: { max_generated_episodes: 11 },
    });
    for (const expected of [1, 2]) {
      expect(engine.requestRefill()).toBe(expected);
      await clock.drive(engine.settled());
    }
    expect(engine.requestRefill()).toBeNull();
    const asked = producers.flatMap((p) => p.requests.map((r) => r.count));
    expect(asked.reduce((a, b) => a + b, 0)).toBe(8); // 3 of the 11 are never produced
    expect(engine.stats()).toMatchObject({ producedEpisodes: 8, generationsReady: 2 });
    expect(telemetry.events.filter((e) => e.type === 'refill_requested')).toHaveLength(2);
    expect(engine.isFinalSupply()).toBe(true);
    expect(engine.cache.finalSupply).toBe(true);
  });

  it('splits a generation evenly, the remainder going to the first producers', async () => {
    expect(splitShares(5, 2)).toEqual([3, 2]);
    expect(splitShares(7, 3)).toEqual([3, 2, 2]);
    expect(splitShares(2, 3)).toEqual([1, 1, 0]);
    const { engine, producers, clock } = setupEngine({ config: { buffer_size: 5, num_envs: 2 } });
    engine.requestRefill();
    await clock.drive(engine.settled());
    expect(producers.map((p) => p.requests[0]!.count)).toEqual([3, 2]);
    expect(engine.cache.size).toBe(5);
  });

  it('records each refill with its request time and each producer’s lifecycle', async () => {
    const { engine, clock, telemetry } = setupEngine({
      producers: (i) => ({ latencyMs: 100 * (i + 1) }),
    });
    const t0 = clock.now() / 1000;
    engine.requestRefill();
    await clock.drive(engine.settled());
    expect(telemetry.events).toEqual([
      { type: 'refill_requested', generation: 1, at: t0 },
      { type: 'producer_started', producer: 0, generation: 1, at: t0 },
      { type: 'producer_started', producer: 1, generation: 1, at: t0 },
      { type: 'producer_finished', producer: 0, generation: 1, at: t0 + 0.1, episodes: 2 },
      { type: 'producer_finished', producer: 1, generation: 1, at: t0 + 0.2, episodes: 2 },
      { type: 'generation_ready', generation: 1, requestedAt: t0, at: t0 + 0.2, episodes: 4 },
    ]);
  });

  it('serves windows from the cache and says when nothing more will ever come', async () => {
    const { engine, clock } = setupEngine({ config: { max_generated_episodes: 4 } });
    const random = createRandom(2);
    expect(() => engine.serve(random, window)).toThrow(
      expect.objectContaining({ code: 'data-unavailable' }),
    );
    engine.requestRefill();
    await clock.drive(engine.settled());
    for (let i = 0; i < 8; i++) expect(engine.serve(random, window).steps).toBe(3);
    expect(() => engine.serve(random, window)).toThrow(
      expect.objectContaining({ code: 'data-exhausted' }),
    );
    expect(engine.stats()).toMatchObject({ servedChunks: 8, unlockedRemainingChunks: 0 });
  });

  it('refills by itself under the auto policy', async () => {
    const { engine, clock, producers } = setupEngine({ config: { refill_policy: 'auto' } });
    engine.start();
    await clock.drive(engine.settled());
    const random = createRandom(2);
    for (let i = 0; i < 8; i++) engine.serve(random, window);
    expect(engine.pendingGeneration).toBe(2);
    await clock.drive(engine.settled());
    expect(engine.serve(random, window).provenance.generation).toBe(2);
    expect(producers[0]!.requests.map((r) => r.generation)).toEqual([1, 2]);
  });
});

describe('DataEngine health', () => {
  it('fails with the producer’s error and stops the other producers', async () => {
    const { engine, producers, clock, telemetry } = setupEngine({
      producers: (i) => ({
        latencyMs: i === 0 ? 100 : 10_000,
        fail: () => (i === 0 ? new Error('simulator diverged') : undefined),
      }),
    });
    engine.requestRefill();
    await clock.drive(engine.settled());
    expect(engine.failure).toMatchObject({ code: 'producer-failed' });
    expect(engine.failure?.message).toBe(
      'Producer 0 failed while producing generation 1: simulator diverged',
    );
    expect(producers[1]!.signals[0]!.aborted).toBe(true);
    expect(clock.pendingSleeps).toBe(0);
    expect(engine.generationState(1)).toBe('failed');
    expect(telemetry.events.map((e) => e.type)).toEqual([
      'refill_requested',
      'producer_started',
      'producer_started',
      'producer_failed',
      'generation_failed',
    ]);
    expect(() => engine.requestRefill()).toThrow('simulator diverged');
    expect(() => engine.serve(Math.random, window)).toThrow(
      expect.objectContaining({ code: 'producer-failed' }),
    );
  });

  it('treats a wrong episode count as the producer’s failure', async () => {
    const clock = new FakeClock();
    const short: Producer = {
      index: 1,
      produce: () => Promise.resolve([]),
      close: () => undefined,
    };
    const engine = new DataEngine({
      config: engineConfig(),
      producers: [new ScriptedProducer(0, clock), short],
      clock,
    });
    engine.requestRefill();
    await clock.drive(engine.settled());
    expect(engine.failure?.message).toMatch(/Producer 1 .*returned 0 episodes for a request of 2/);
  });

  it('stops and releases its producers when the run’s signal aborts', async () => {
    const run = new AbortController();
    const { engine, producers, clock } = setupEngine({ signal: run.signal });
    engine.requestRefill();
    await clock.advance(10);
    run.abort();
    await clock.advance(0);
    expect(producers.every((p) => p.closed && p.signals[0]!.aborted)).toBe(true);
    expect(clock.pendingSleeps).toBe(0);
    expect(() => engine.requestRefill()).toThrow(
      expect.objectContaining({ code: 'data-engine-closed' }),
    );
    expect(engine.cache.size).toBe(0);
  });
});
