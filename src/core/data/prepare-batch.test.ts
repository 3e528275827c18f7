import { describe, expect, it } from 'vitest';
import { createRandom } from '../random';
import { FlowController } from './flow-controller';
import { engineConfig, planFor, setupController } from './testing';

const window = { contextLength: 2, predictionLength: 1 };

async function sample(controller: FlowController, chunks: number) {
  for (let i = 0; i < chunks; i++) await controller.sampleContext(window);
}

describe('prepareBatch with a plan', () => {
  it('requests a refill once the unlocked remaining chunks fall to refill_remaining_chunks', async () => {
    // 4 episodes × 2 chunks per cache, batches of 2, refill at 4 chunks left.
    const { controller, engine, producers, clock, telemetry } = setupController({
      config: { plan: planFor() },
    });
    const t0 = clock.now() / 1000;
    expect(await clock.drive(controller.prepareBatch())).toBe(true);
    expect(telemetry.intervals).toEqual([{ kind: 'quota_wait', start: t0, end: t0 + 1 }]);
    await sample(controller, 2); // 6 left
    expect(await clock.drive(controller.prepareBatch())).toBe(true);
    expect(producers[0]!.requests).toHaveLength(1);
    expect(engine.pendingGeneration).toBeNull();
    await sample(controller, 2); // 4 left
    expect(await clock.drive(controller.prepareBatch())).toBe(true);
    expect(engine.pendingGeneration).toBe(2);
    // The batch was funded from what was left: no second quota wait.
    expect(telemetry.intervals.filter((i) => i.kind === 'quota_wait')).toHaveLength(1);
  });

  it('waits at most data_wait_timeout, then says what was missing', async () => {
    const { controller, clock, telemetry } = setupController({
      config: { plan: planFor() },
      producers: { latencyMs: 60_000 },
    });
    const t0 = clock.now();
    const error = await clock.drive(controller.prepareBatch()).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'data-wait-timeout' });
    expect(String(error)).toMatch(
      /No batch after 10 s \(data_wait_timeout\): a batch needs 2 unlocked chunks and the cache has 0; generation 1 is still being produced/,
    );
    expect(clock.now() - t0).toBe(10_000);
    expect(telemetry.intervals).toEqual([
      { kind: 'quota_wait', start: t0 / 1000, end: t0 / 1000 + 10 },
    ]);
  });

  it('returns false only when the capped final supply cannot fund a complete batch', async () => {
    // One generation allowed: 4 episodes × 2 chunks = 8; batches of 3 fund twice.
    const capped = setupController({
      config: {
        max_generated_episodes: 4,
        plan: planFor({ batch_size: 3, refill_remaining_chunks: 0 }),
      },
    });
    const results: boolean[] = [];
    for (let i = 0; i < 3; i++) {
      const ready = await capped.clock.drive(capped.controller.prepareBatch());
      results.push(ready);
      if (ready) await sample(capped.controller, 3);
    }
    expect(results).toEqual([true, true, false]);
    expect(capped.engine.cache.unlockedRemainingChunks()).toBe(2);
    expect(capped.producers[0]!.requests).toHaveLength(1);

    // The same shortfall with production still possible: it refills and goes on.
    const open = setupController({
      config: {
        max_generated_episodes: 8,
        plan: planFor({ batch_size: 3, refill_remaining_chunks: 0 }),
      },
    });
    for (let i = 0; i < 2; i++) {
      expect(await open.clock.drive(open.controller.prepareBatch())).toBe(true);
      await sample(open.controller, 3);
    }
    expect(await open.clock.drive(open.controller.prepareBatch())).toBe(true);
    expect(open.engine.stats().generationsReady).toBe(2);
  });

  it('funds the final batches from the hard limit once no more data can come', async () => {
    const { controller, clock } = setupController({
      config: {
        max_generated_episodes: 4,
        episode_sample_hard_limit: 3,
        plan: planFor({ batch_size: 3, refill_remaining_chunks: 0 }),
      },
    });
    let batches = 0;
    while (await clock.drive(controller.prepareBatch())) {
      await sample(controller, 3);
      batches++;
    }
    expect(batches).toBe(4); // 4 episodes × 3 chunks
  });

  it('paces to the planned rate, and a slow step earns no catch-up credit', async () => {
    // Batches of 2 at 20 chunks/s: one batch per 100 ms.
    const { controller, clock, telemetry } = setupController({
      config: {
        episode_sample_budget: 100,
        episode_sample_hard_limit: 100,
        plan: planFor({ refill_remaining_chunks: 0 }),
      },
    });
    await clock.drive(controller.prepareBatch());
    const tA = clock.now();
    await clock.drive(controller.prepareBatch());
    expect(clock.now() - tA).toBe(100);
    expect(telemetry.intervals.at(-1)).toEqual({
      kind: 'usage_throttle',
      start: tA / 1000,
      end: (tA + 100) / 1000,
    });
    await clock.advance(500); // a slow training step
    const tB = clock.now();
    await clock.drive(controller.prepareBatch());
    expect(clock.now()).toBe(tB); // late already: no wait
    await clock.drive(controller.prepareBatch());
    expect(clock.now() - tB).toBe(100); // but no burst either
  });

  it('keeps the planned rate when its own timer fires late', async () => {
    // One batch per 100 ms; every sleep wakes 30 ms late, as a busy event loop does.
    const { engine, clock } = setupController({
      config: {
        episode_sample_budget: 100,
        episode_sample_hard_limit: 100,
        plan: planFor({ refill_remaining_chunks: 0 }),
      },
    });
    const late = new FlowController({
      engine,
      clock: { now: () => clock.now(), sleep: (ms, signal) => clock.sleep(ms + 30, signal) },
      random: createRandom(1),
    });
    await clock.drive(late.prepareBatch());
    const t0 = clock.now();
    for (let batch = 0; batch < 10; batch++) await clock.drive(late.prepareBatch());
    // Ten slots of 100 ms, the last one 30 ms late: the lateness did not add up.
    expect(clock.now() - t0).toBe(1030);
  });

  it('paces to the active cap when it is below the target', async () => {
    const { controller, clock } = setupController({
      config: {
        episode_sample_budget: 100,
        episode_sample_hard_limit: 100,
        plan: planFor({ refill_remaining_chunks: 0, active_chunks_per_second_cap: 10 }),
      },
    });
    await clock.drive(controller.prepareBatch());
    const t = clock.now();
    await clock.drive(controller.prepareBatch());
    expect(clock.now() - t).toBe(200);
  });

  it('stops waiting as soon as the run is cancelled, and stops the producers', async () => {
    const run = new AbortController();
    const { controller, producers, clock, telemetry } = setupController({
      config: { plan: planFor() },
      producers: { latencyMs: 60_000 },
      signal: run.signal,
    });
    const t0 = clock.now();
    const waiting = controller.prepareBatch();
    await clock.advance(300);
    run.abort();
    await expect(waiting).rejects.toMatchObject({ code: 'cancelled' });
    expect(clock.now() - t0).toBe(300);
    expect(clock.pendingSleeps).toBe(0);
    expect(producers.every((p) => p.closed && p.signals[0]!.aborted)).toBe(true);
    expect(telemetry.intervals).toEqual([
      { kind: 'quota_wait', start: t0 / 1000, end: (t0 + 300) / 1000 },
    ]);
  });

  it('stops a throttle on the caller’s own signal', async () => {
    const { controller, clock } = setupController({
      config: {
        episode_sample_budget: 100,
        episode_sample_hard_limit: 100,
        plan: planFor({ refill_remaining_chunks: 0 }),
      },
    });
    await clock.drive(controller.prepareBatch());
    const step = new AbortController();
    const throttled = controller.prepareBatch(step.signal);
    await clock.advance(10);
    step.abort();
    await expect(throttled).rejects.toMatchObject({ code: 'cancelled' });
    expect(clock.pendingSleeps).toBe(0);
  });
});

describe('prepareBatch without a plan', () => {
  it('only polls: requests no refill and never throttles', async () => {
    const { controller, engine, producers, clock, telemetry } = setupController();
    expect(engineConfig().plan).toBeNull();
    const t0 = clock.now();
    const waiting = controller.prepareBatch();
    await clock.advance(2000);
    expect(producers[0]!.requests).toHaveLength(0);
    engine.requestRefill();
    expect(await clock.drive(waiting)).toBe(true);
    expect(telemetry.intervals).toEqual([
      { kind: 'data_wait', start: t0 / 1000, end: (t0 + 3000) / 1000 },
    ]);
    const t1 = clock.now();
    expect(await clock.drive(controller.prepareBatch())).toBe(true);
    expect(await clock.drive(controller.prepareBatch())).toBe(true);
    expect(clock.now()).toBe(t1);
    expect(producers[0]!.requests).toHaveLength(1);
  });

  it('returns false once the final supply is spent', async () => {
    const { controller, engine, clock } = setupController({
      config: { max_generated_episodes: 4 },
    });
    engine.requestRefill();
    await clock.drive(engine.settled());
    await sample(controller, 8);
    expect(await clock.drive(controller.prepareBatch())).toBe(false);
  });
});
