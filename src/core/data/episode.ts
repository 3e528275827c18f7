/**
 * The data an online data engine moves: episodes as producers emit them, and
 * context windows as the consumer samples them. Arrays are flat typed arrays
 * (row-major, one row per step) so they can cross a worker boundary as
 * transferred buffers instead of being copied element by element.
 */

/** An episode's id in the cache: unique within one data engine, in landing order. */
export type EpisodeId = number & { readonly __brand: 'EpisodeId' };

/** One episode of one environment instance, as a producer emits it. */
export interface EpisodeData {
  /** Steps taken: the configured episode length, or fewer when the env terminated. */
  readonly length: number;
  readonly observationSize: number;
  readonly actionSize: number;
  /** `(length + 1) × observationSize`: the observation before each step, and after the last. */
  readonly observations: Float32Array;
  /** `length × actionSize`: the action each step applied (after clipping). */
  readonly actions: Float32Array;
  /** `length`: the reward of each step. */
  readonly rewards: Float32Array;
  /** `length`: 1 on the step after which the episode ended, else 0. */
  readonly dones: Uint8Array;
  /** True when the env terminated; false when it ran to the configured length. */
  readonly terminated: boolean;
}

/** Where a sampled chunk came from. */
export interface Provenance {
  readonly episode: EpisodeId;
  readonly generation: number;
  /** Index of the producer that emitted the episode. */
  readonly producer: number;
  /** The episode step the window starts at. */
  readonly offset: number;
}

/** The shape of a sampled window: `contextLength` steps to condition on, then `predictionLength` to predict. */
export interface ContextWindow {
  readonly contextLength: number;
  readonly predictionLength: number;
}

/**
 * One sampled window of `steps = contextLength + predictionLength` steps.
 * Steps past the episode's end are zero and masked out.
 */
export interface ContextChunk {
  readonly window: ContextWindow;
  readonly steps: number;
  /** `steps × observationSize`. */
  readonly observations: Float32Array;
  /** `steps × actionSize`. */
  readonly actions: Float32Array;
  /** `steps`. */
  readonly rewards: Float32Array;
  /** `steps`: 1 where the observation exists (step ≤ episode length). */
  readonly observationMask: Uint8Array;
  /** `steps`: 1 where the action and reward exist (step < episode length). */
  readonly actionMask: Uint8Array;
  readonly provenance: Provenance;
}
