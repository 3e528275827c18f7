/**
 * The protocol between the engine worker and its producer workers.
 *
 * A producer worker holds no state between requests: each `produce` names
 * the environment, the producer's index and the generation, and the episodes
 * depend on nothing else (seeds derive from the three), so a retry or a
 * fresh worker would produce the same data. Every request is answered
 * exactly once, with the episodes (their buffers transferred, not copied) or
 * with the producer's error, code kept. `cancel` stops a request in flight;
 * its answer is then a `cancelled` error nobody waits for.
 */
import type { EpisodeData } from '../src/core/data/episode';
import type { EnvironmentSpec } from '../src/core/live/environment';
import type { SerializedError } from './protocol';

export type ProducerRequest =
  | {
      type: 'produce';
      id: number;
      environment: EnvironmentSpec;
      /** The producer's index among the engine's producers. */
      producer: number;
      generation: number;
      count: number;
    }
  | { type: 'cancel'; id: number };

export type ProducerReply =
  | { type: 'episodes'; id: number; episodes: EpisodeData[] }
  | { type: 'failed'; id: number; error: SerializedError };

/** The buffers of `episodes`, to transfer rather than copy. */
export function episodeBuffers(episodes: readonly EpisodeData[]): ArrayBuffer[] {
  return episodes.flatMap((e) =>
    [e.observations, e.actions, e.rewards, e.dones].map((a) => a.buffer as ArrayBuffer),
  );
}
