import { describe, expect, it, vi } from 'vitest';
import { setupController } from './testing';
import { FlowbenchError } from '../errors';

const window = { contextLength: 3, predictionLength: 2 };

describe('sampleContext', () => {
  it('samples context + prediction windows with masks and provenance', async () => {
    const { controller, engine, clock } = setupController();
    engine.requestRefill();
    await clock.drive(engine.settled());
    const chunk = await controller.sampleContext(window);
    const { episode, generation, producer, offset } = chunk.provenance;
    const source = engine.cache.episodes().find((e) => e.id === episode)!;
    expect(generation).toBe(1);
    expect(source.producer).toBe(producer);
    expect(offset).toBeGreaterThanOrEqual(0);
    expect(offset).toBeLessThanOrEqual(8 - 5);
    const tag = source.data.observations[0]!;
    expect(Array.from(chunk.observations)).toEqual(
      [0, 1, 2, 3, 4].flatMap((k) => [tag, offset + k]),
    );
    expect(Array.from(chunk.observationMask)).toEqual([1, 1, 1, 1, 1]);
    expect(source.served).toBe(1);
  });

  it('waits out data that is not there yet, and records the wait', async () => {
    const { controller, engine, clock, telemetry } = setupController();
    const t0 = clock.now();
    const sampling = controller.sampleContext(window);
    await clock.advance(500);
    engine.requestRefill(); // lands 1 s later
    const chunk = await clock.drive(sampling);
    expect(chunk.provenance.generation).toBe(1);
    expect(clock.now() - t0).toBe(1500);
    expect(telemetry.intervals).toEqual([
      { kind: 'data_wait', start: t0 / 1000, end: (t0 + 1500) / 1000 },
    ]);
  });

  it('waits out budgets that are momentarily spent', async () => {
    const { controller, engine, clock } = setupController();
    engine.requestRefill();
    await clock.drive(engine.settled());
    for (let i = 0; i < 8; i++) await controller.sampleContext(window);
    engine.requestRefill();
    const chunk = await clock.drive(controller.sampleContext(window));
    expect(chunk.provenance.generation).toBe(2);
  });

  it('gives up after data_wait_timeout and says why', async () => {
    const { controller, clock } = setupController();
    const t0 = clock.now();
    const error = await clock.drive(controller.sampleContext(window)).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'data-wait-timeout' });
    expect(String(error)).toMatch(/No context window after 10 s .*no refill is pending/);
    expect(clock.now() - t0).toBe(10_000);
  });

  it('propagates any other error at once, without waiting', async () => {
    const { controller, engine, clock, telemetry } = setupController();
    const serve = vi.spyOn(engine, 'serve').mockImplementation(() => {
      throw new RangeError('observation size mismatch');
    });
    const t0 = clock.now();
    await expect(clock.drive(controller.sampleContext(window))).rejects.toThrow(
      'observation size mismatch',
    );
    expect(serve).toHaveBeenCalledTimes(1);
    expect(clock.now()).toBe(t0);
    expect(telemetry.intervals).toEqual([]);
  });

  it('retries a transient error, and only that', async () => {
    const { controller, engine, clock } = setupController();
    engine.requestRefill();
    await clock.drive(engine.settled());
    const serve = engine.serve.bind(engine);
    let calls = 0;
    vi.spyOn(engine, 'serve').mockImplementation((random, w) => {
      if (++calls <= 2)
        throw new FlowbenchError('data-unavailable', { problem: 'momentarily spent' });
      return serve(random, w);
    });
    const t0 = clock.now();
    await clock.drive(controller.sampleContext(window));
    expect(calls).toBe(3);
    expect(clock.now() - t0).toBe(200); // two polls of 100 ms
  });

  it('propagates exhaustion, a producer failure and a bad window at once', async () => {
    const capped = setupController({ config: { max_generated_episodes: 4 } });
    capped.engine.requestRefill();
    await capped.clock.drive(capped.engine.settled());
    for (let i = 0; i < 8; i++) await capped.controller.sampleContext(window);
    const t0 = capped.clock.now();
    await expect(capped.clock.drive(capped.controller.sampleContext(window))).rejects.toMatchObject(
      { code: 'data-exhausted' },
    );
    expect(capped.clock.now()).toBe(t0);
    await expect(
      capped.controller.sampleContext({ contextLength: 0, predictionLength: 1 }),
    ).rejects.toThrow(expect.objectContaining({ code: 'invalid-data-config' }));

    const broken = setupController({
      producers: { latencyMs: 1000, fail: () => new Error('worker died') },
    });
    const t1 = broken.clock.now();
    broken.engine.requestRefill();
    const error = await broken.clock
      .drive(broken.controller.sampleContext(window))
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'producer-failed' });
    expect(String(error)).toMatch(/worker died/);
    expect(broken.clock.now() - t1).toBeLessThanOrEqual(1100); // the next poll, not the timeout
  });
});
