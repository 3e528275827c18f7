/**
 * The protocol between the engine worker and its producer workers.
 *
 * A producer worker holds no state between requests: each `produce` names
 * the environment, the producer's index and the generation, and the episodes
 * depend on nothing else (seeds derive from the three), so a retry or a
 * fresh worker would produce the same data. Every request is answered
 * exactly once, with the episodes (packed, their buffers transferred) or
 * with the producer's error as a catalogue error (code and data kept). `cancel` stops a request in flight;
 * its answer is then a `cancelled` error nobody waits for. `recycle` hands
 * a reply's buffers back once the engine has spent its episodes, so a
 * worker in a steady state writes into memory it already has.
 */
import type { PackedEpisodes } from '../src/core/data/packed-episodes';
import type { EnvironmentSpec } from '../src/core/data/environment-spec';
import type { SerializedError } from '../src/core/errors';

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
  | { type: 'cancel'; id: number }
  /**
   * The engine is done with a reply's episodes: their buffers come back
   * (transferred) for the worker to write later replies into.
   */
  | { type: 'recycle'; buffers: ArrayBuffer[] };

/**
 * A reply carries its episodes packed end to end (`PackedEpisodes`), one
 * array per field: transferring a buffer costs about the same whatever its
 * size, so a reply of thousands of episodes moves six buffers, not four per
 * episode. The worker's rollouts wrote them there, and the receiver's
 * episodes are views into them: no copy on either side.
 */
export type ProducerReply =
  | { type: 'episodes'; id: number; episodes: PackedEpisodes }
  | { type: 'failed'; id: number; error: SerializedError };

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
