import { describe, expect, it } from 'vitest';
import { createRandom } from '../random';
import { DataEngine } from './data-engine';
import type { EpisodeData } from './episode';
import { FakeClock } from './fake-clock';
import type { ProduceRequest } from './producer';
import { engineConfig, ScriptedProducer } from './testing';

/** A scripted producer that records what it produced and what was given back. */
class ReleasingProducer extends ScriptedProducer {
  readonly produced: EpisodeData[][] = [];
  readonly released: (readonly EpisodeData[])[] = [];

  override async produce(request: ProduceRequest, signal: AbortSignal): Promise<EpisodeData[]> {
    const episodes = await super.produce(request, signal);
    this.produced.push(episodes);
    return episodes;
  }

  release(episodes: readonly EpisodeData[]): void {
    this.released.push(episodes);
  }
}

const window = { contextLength: 2, predictionLength: 1 };

describe('DataEngine giving memory back', () => {
  it('releases a share only once all its episodes are spent and gone from the cache', async () => {
    const clock = new FakeClock();
    const producers = [0, 1].map((i) => new ReleasingProducer(i, clock));
    const engine = new DataEngine({
      config: engineConfig({ episode_sample_budget: 1, episode_sample_hard_limit: 1 }),
      producers,
      clock,
    });
    engine.requestRefill();
    await clock.drive(engine.settled());
    // Three of the four episodes spent: one share is wholly spent, the other is not.
    const random = createRandom(3);
    for (let i = 0; i < 3; i++) engine.serve(random, window);
    const unspent = engine.cache.episodes().find((e) => e.served === 0)!;
    engine.requestRefill();
    await clock.drive(engine.settled());
    const whole = producers[1 - unspent.producer]!;
    const partial = producers[unspent.producer]!;
    expect(whole.released).toEqual([whole.produced[0]]);
    expect(whole.released[0]).toBe(whole.produced[0]);
    expect(partial.released).toEqual([]);
    // The unspent episode is still served, from memory nobody was told to reuse.
    expect(engine.cache.episodes()).toContain(unspent);
    // Once it is spent too, the next generation gives its share back.
    while (unspent.served === 0) engine.serve(random, window);
    while (engine.cache.unlockedRemainingChunks() > 0) engine.serve(random, window);
    engine.requestRefill();
    await clock.drive(engine.settled());
    expect(partial.released[0]).toBe(partial.produced[0]);
    expect(whole.released).toEqual([whole.produced[0], whole.produced[1]]);
    engine.close();
  });
});
