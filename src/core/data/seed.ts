/**
 * Seeds derived from a run's seed. Each producer draws from its own stream per
 * generation, so what it emits depends only on (seed, producer, generation) and
 * never on which producer happened to finish first.
 */

/** A 32-bit seed mixed from `seed` and `parts` (murmur3's finaliser per part). */
export function deriveSeed(seed: number, ...parts: readonly number[]): number {
  let h = (seed ^ 0x9e3779b9) >>> 0;
  for (const part of parts) {
    h = Math.imul(h ^ (part >>> 0), 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return h >>> 0;
}
