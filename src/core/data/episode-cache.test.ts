import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRandom } from '../random';
import { EpisodeCache } from './episode-cache';
import { countingEpisode } from './testing';
import { isTransient } from '../errors';

const generation = (count: number, producer = 0) => [
  { producer, episodes: Array.from({ length: count }, (_, k) => countingEpisode(4, k)) },
];

/** Take until the cache refuses; returns how many chunks it served. */
function drain(cache: EpisodeCache, seed = 1): number {
  const random = createRandom(seed);
  let served = 0;
  for (;;) {
    try {
      cache.take(random);
      served++;
    } catch (error) {
      expect(error).toMatchObject({ code: 'data-unavailable' });
      return served;
    }
  }
}

describe('EpisodeCache budgets', () => {
  it('serves each episode at most its sample budget, then refuses transiently', () => {
    const cache = new EpisodeCache(3, 5);
    cache.land(1, generation(4));
    expect(cache.unlockedRemainingChunks()).toBe(12);
    expect(drain(cache)).toBe(12);
    expect(cache.episodes().map((e) => e.served)).toEqual([3, 3, 3, 3]);
    expect(cache.unlockedRemainingChunks()).toBe(0);
    let refusal: unknown;
    try {
      cache.take(createRandom(1));
    } catch (error) {
      refusal = error;
    }
    expect(isTransient(refusal)).toBe(true);
    expect(String(refusal)).toMatch(/sample budget \(3 chunks\)/);
  });

  it('opens the final supply up to the hard limit, and never past it', () => {
    const cache = new EpisodeCache(2, 5);
    cache.land(1, generation(3));
    drain(cache);
    cache.openFinalSupply();
    expect(cache.unlockedRemainingChunks()).toBe(9);
    expect(drain(cache)).toBe(9);
    expect(cache.episodes().map((e) => e.served)).toEqual([5, 5, 5]);
    cache.openFinalSupply();
    expect(drain(cache)).toBe(0);
  });

  it('lets spent episodes of earlier generations go and keeps the unspent', () => {
    const cache = new EpisodeCache(1, 1);
    cache.land(1, generation(3));
    const random = () => 0; // always the first open episode
    const first = cache.take(random);
    cache.land(2, generation(2));
    expect(cache.episodes().map((e) => e.generation)).toEqual([1, 1, 2, 2]);
    expect(cache.episodes()).not.toContain(first);
    expect(new Set(cache.episodes().map((e) => e.id)).size).toBe(4);
  });

  it('counts as unlocked remaining exactly what it can still serve', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 0, max: 3 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 12 })), {
          maxLength: 4,
        }),
        fc.boolean(),
        (budget, extra, generations, final) => {
          const cache = new EpisodeCache(budget, budget + extra);
          const random = createRandom(7);
          let served = 0;
          generations.forEach(([episodes, takes], g) => {
            cache.land(g + 1, generation(episodes));
            for (let i = 0; i < takes && cache.unlockedRemainingChunks() > 0; i++) {
              cache.take(random);
              served++;
            }
          });
          if (final) cache.openFinalSupply();
          const remaining = cache.unlockedRemainingChunks();
          expect(drain(cache)).toBe(remaining);
          const limit = final ? budget + extra : budget;
          for (const e of cache.episodes()) expect(e.served).toBeLessThanOrEqual(limit);
          expect(cache.servedChunks).toBe(served + remaining);
        },
      ),
    );
  });

  it('says it is empty before anything landed', () => {
    expect(() => new EpisodeCache(1, 1).take(Math.random)).toThrow('The episode cache is empty');
  });
});
