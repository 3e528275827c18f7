import { describe, expect, it } from 'vitest';
import { setupController } from './testing';

describe('waitForGeneration', () => {
  it('resolves when the generation lands, recording the wait', async () => {
    const { controller, engine, clock, telemetry } = setupController();
    const t0 = clock.now();
    const generation = engine.requestRefill()!;
    await clock.drive(controller.waitForGeneration(generation));
    expect(engine.generationState(generation)).toBe('ready');
    expect(telemetry.intervals).toEqual([
      { kind: 'data_wait', start: t0 / 1000, end: (t0 + 1000) / 1000 },
    ]);
    // Already there: no wait, nothing recorded.
    await controller.waitForGeneration(generation);
    expect(telemetry.intervals).toHaveLength(1);
  });

  it('times out after generation_timeout with an error naming the generation', async () => {
    const { controller, engine, clock } = setupController({ producers: { latencyMs: 60_000 } });
    const t0 = clock.now();
    const generation = engine.requestRefill()!;
    const error = await clock
      .drive(controller.waitForGeneration(generation))
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'generation-timeout', data: { generation: 1 } });
    expect(String(error)).toMatch(
      /Generation 1 was not ready after 20 s \(generation_timeout 20 s\)/,
    );
    expect(clock.now() - t0).toBe(20_000);
  });

  it('is cut short by an earlier deadline, never extended by a later one', async () => {
    const { controller, engine, clock } = setupController({ producers: { latencyMs: 60_000 } });
    engine.requestRefill();
    const t0 = clock.now();
    await expect(
      clock.drive(controller.waitForGeneration(1, { deadline: t0 + 3000 })),
    ).rejects.toThrow(/Generation 1 was not ready after 3 s \(the deadline came first\)/);
    expect(clock.now() - t0).toBe(3000);
    const t1 = clock.now();
    await expect(
      clock.drive(controller.waitForGeneration(1, { deadline: t1 + 100_000 })),
    ).rejects.toThrow(/generation_timeout 20 s/);
    expect(clock.now() - t1).toBe(20_000);
    const t2 = clock.now();
    await expect(controller.waitForGeneration(1, { deadline: t2 - 1 })).rejects.toThrow(
      expect.objectContaining({ code: 'generation-timeout' }),
    );
    expect(clock.now()).toBe(t2);
  });

  it('fails with the producer’s error when the generation fails', async () => {
    const { controller, engine, clock } = setupController({
      producers: { latencyMs: 500, fail: () => new Error('NaN in the state') },
    });
    const t0 = clock.now();
    engine.requestRefill();
    await expect(clock.drive(controller.waitForGeneration(1))).rejects.toMatchObject({
      code: 'producer-failed',
    });
    expect(clock.now() - t0).toBeLessThanOrEqual(600);
  });

  it('stops at once when its signal aborts', async () => {
    const { controller, engine, clock } = setupController({ producers: { latencyMs: 60_000 } });
    engine.requestRefill();
    const stop = new AbortController();
    const waiting = controller.waitForGeneration(1, { signal: stop.signal });
    await clock.advance(250);
    stop.abort();
    await expect(waiting).rejects.toMatchObject({ code: 'cancelled' });
    expect(clock.pendingSleeps).toBe(2); // only the two producers' own sleeps remain
  });
});
