/**
 * The protocol between the engine worker and its producer workers.
 *
 * A producer worker holds no state between requests: each `produce` names
 * the environment, the producer's index and the generation, and the episodes
 * depend on nothing else (seeds derive from the three), so a retry or a
 * fresh worker would produce the same data. Every request is answered
 * exactly once, with the episodes (packed, their buffers transferred) or
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
  | { type: 'episodes'; id: number; episodes: PackedEpisodes }
  | { type: 'failed'; id: number; error: SerializedError };

/**
 * A producer's episodes packed end to end, one array per field. Transferring
 * a buffer costs about the same whatever its size, so a reply of thousands of
 * short episodes moves four buffers, not four per episode; the receiver's
 * episodes are views into them (no copy on either side but the packing).
 */
export interface PackedEpisodes {
  readonly observationSize: number;
  readonly actionSize: number;
  /** Steps of each episode. */
  readonly lengths: Uint32Array;
  /** 1 where the episode terminated. */
  readonly terminated: Uint8Array;
  readonly observations: Float32Array;
  readonly actions: Float32Array;
  readonly rewards: Float32Array;
  readonly dones: Uint8Array;
}

/** `episodes` (all of one environment) packed for one reply. */
export function packEpisodes(episodes: readonly EpisodeData[]): PackedEpisodes {
  const O = episodes[0]?.observationSize ?? 0;
  const A = episodes[0]?.actionSize ?? 0;
  const steps = episodes.reduce((sum, e) => sum + e.length, 0);
  const packed = {
    observationSize: O,
    actionSize: A,
    lengths: Uint32Array.from(episodes, (e) => e.length),
    terminated: Uint8Array.from(episodes, (e) => (e.terminated ? 1 : 0)),
    observations: new Float32Array((steps + episodes.length) * O),
    actions: new Float32Array(steps * A),
    rewards: new Float32Array(steps),
    dones: new Uint8Array(steps),
  };
  let step = 0;
  episodes.forEach((e, i) => {
    packed.observations.set(e.observations, (step + i) * O);
    packed.actions.set(e.actions, step * A);
    packed.rewards.set(e.rewards, step);
    packed.dones.set(e.dones, step);
    step += e.length;
  });
  return packed;
}

/** The episodes of a reply, as views into its buffers. */
export function unpackEpisodes(packed: PackedEpisodes): EpisodeData[] {
  const { observationSize: O, actionSize: A } = packed;
  let step = 0;
  return Array.from(packed.lengths, (length, i) => {
    const at = step;
    step += length;
    return {
      length,
      observationSize: O,
      actionSize: A,
      observations: packed.observations.subarray((at + i) * O, (at + i + length + 1) * O),
      actions: packed.actions.subarray(at * A, (at + length) * A),
      rewards: packed.rewards.subarray(at, at + length),
      dones: packed.dones.subarray(at, at + length),
      terminated: packed.terminated[i] === 1,
    };
  });
}

/** The buffers of a packed reply, to transfer rather than copy. */
export function packedBuffers(packed: PackedEpisodes): ArrayBuffer[] {
  return [
    packed.lengths,
    packed.terminated,
    packed.observations,
    packed.actions,
    packed.rewards,
    packed.dones,
  ].map((a) => a.buffer as ArrayBuffer);
}
