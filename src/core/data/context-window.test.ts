import { describe, expect, it } from 'vitest';
import { cutContextWindow, drawWindowOffset, validateContextWindow } from './context-window';
import type { EpisodeId } from './episode';
import type { CachedEpisode } from './episode-cache';
import { countingEpisode } from './testing';

const cached = (length: number): CachedEpisode => ({
  id: 7 as EpisodeId,
  generation: 3,
  producer: 1,
  data: countingEpisode(length, 42),
  served: 0,
});

describe('context windows', () => {
  it('cuts context + prediction steps with provenance', () => {
    const chunk = cutContextWindow(cached(10), 4, { contextLength: 3, predictionLength: 2 });
    expect(chunk.steps).toBe(5);
    expect(Array.from(chunk.observations)).toEqual([42, 4, 42, 5, 42, 6, 42, 7, 42, 8]);
    expect(Array.from(chunk.actions)).toEqual([4, 5, 6, 7, 8]);
    expect(Array.from(chunk.rewards)).toEqual([4, 5, 6, 7, 8]);
    expect(Array.from(chunk.observationMask)).toEqual([1, 1, 1, 1, 1]);
    expect(Array.from(chunk.actionMask)).toEqual([1, 1, 1, 1, 1]);
    expect(chunk.provenance).toEqual({ episode: 7, generation: 3, producer: 1, offset: 4 });
  });

  it('zeroes and masks the steps past the end of a short episode', () => {
    const chunk = cutContextWindow(cached(3), 0, { contextLength: 2, predictionLength: 3 });
    // Observations exist for steps 0…3 (the one after the last step included), actions for 0…2.
    expect(Array.from(chunk.observationMask)).toEqual([1, 1, 1, 1, 0]);
    expect(Array.from(chunk.actionMask)).toEqual([1, 1, 1, 0, 0]);
    expect(Array.from(chunk.observations)).toEqual([42, 0, 42, 1, 42, 2, 42, 3, 0, 0]);
    expect(Array.from(chunk.actions)).toEqual([0, 1, 2, 0, 0]);
  });

  it('draws offsets where the window fits whole, or 0 when none does', () => {
    const offsets = new Set<number>();
    let u = 0;
    const sweep = () => (u = (u + 0.013) % 1);
    for (let i = 0; i < 200; i++) offsets.add(drawWindowOffset(10, 4, sweep));
    expect([...offsets].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(drawWindowOffset(3, 8, () => 0.99)).toBe(0);
  });

  it('names the bad window field', () => {
    expect(
      validateContextWindow({ contextLength: 0, predictionLength: -1 }).map((i) => i.path),
    ).toEqual(['context_length', 'prediction_length']);
    expect(validateContextWindow({ contextLength: 1, predictionLength: 0 })).toEqual([]);
  });
});
