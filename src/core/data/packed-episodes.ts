/**
 * Episodes packed end to end: one flat array per field for a whole batch of
 * episodes, instead of four small arrays per episode. A producer writes its
 * rollouts straight into these arrays, so making a thousand episodes
 * allocates six buffers, not four thousand, leaves the garbage collector
 * almost nothing to do, and a worker hands the batch over by transferring
 * the six buffers as they are (no packing copy). The cost is that an episode
 * is a view into shared buffers: it keeps the whole batch alive while it is
 * cached.
 *
 * Episode `e` of a batch starts at step `s` = the sum of the lengths before
 * it: its observations at `(s + e) × observationSize` (one more row than
 * steps), its actions at `s × actionSize`, its rewards and dones at `s`.
 */
import type { BufferPool } from './buffer-pool';
import type { EpisodeData } from './episode';

/** A batch of episodes of one environment, packed end to end. */
export interface PackedEpisodes {
  readonly observationSize: number;
  readonly actionSize: number;
  /** Steps of each episode; its length is the number of episodes. */
  readonly lengths: Uint32Array;
  /** 1 where the episode terminated. */
  readonly terminated: Uint8Array;
  readonly observations: Float32Array;
  readonly actions: Float32Array;
  readonly rewards: Float32Array;
  readonly dones: Uint8Array;
}

/**
 * Where rollouts write: room for `capacity` episodes of up to
 * `episodeLength` steps each. `count` episodes and `steps` steps are
 * written so far; the next rollout writes after them.
 */
export class PackedEpisodeWriter {
  readonly lengths: Uint32Array;
  readonly terminated: Uint8Array;
  readonly observations: Float32Array;
  readonly actions: Float32Array;
  readonly rewards: Float32Array;
  readonly dones: Uint8Array;
  /** Episodes written. */
  count = 0;
  /** Steps written, over all episodes. */
  steps = 0;

  /**
   * With a `pool`, the arrays are laid over buffers taken from it (their old
   * contents are overwritten wherever an episode is written, and nothing
   * else is ever read); without one, over new buffers.
   */
  constructor(
    readonly observationSize: number,
    readonly actionSize: number,
    readonly capacity: number,
    readonly episodeLength: number,
    private readonly pool?: BufferPool,
  ) {
    if (!Number.isInteger(capacity) || capacity < 0)
      throw new RangeError(`capacity must be a whole number of episodes, got ${capacity}`);
    if (!Number.isInteger(episodeLength) || episodeLength < 1)
      throw new RangeError(`episodeLength must be a positive whole number, got ${episodeLength}`);
    const maxSteps = capacity * episodeLength;
    const buffer = (bytes: number) => pool?.take(bytes) ?? new ArrayBuffer(bytes);
    this.lengths = new Uint32Array(buffer(capacity * 4), 0, capacity);
    this.terminated = new Uint8Array(buffer(capacity), 0, capacity);
    const rows = (maxSteps + capacity) * observationSize;
    this.observations = new Float32Array(buffer(rows * 4), 0, rows);
    this.actions = new Float32Array(buffer(maxSteps * actionSize * 4), 0, maxSteps * actionSize);
    this.rewards = new Float32Array(buffer(maxSteps * 4), 0, maxSteps);
    this.dones = new Uint8Array(buffer(maxSteps), 0, maxSteps);
  }

  /**
   * The episodes written, packed. Views when they fill at least half the
   * room (pendulums always fill it all); copies of the used part when
   * episodes ended early enough to leave most of it empty, so a cache of
   * short cart-pole episodes does not hold buffers sized for long ones.
   */
  finish(): PackedEpisodes {
    const { count, steps, observationSize: O, actionSize: A } = this;
    const wasteful = 2 * steps < this.capacity * this.episodeLength;
    const cut = <T extends Float32Array | Uint8Array | Uint32Array>(array: T, end: number): T => {
      if (!wasteful) return array.subarray(0, end) as T;
      const copy = array.slice(0, end) as T;
      this.pool?.give([array.buffer as ArrayBuffer]);
      return copy;
    };
    return {
      observationSize: O,
      actionSize: A,
      lengths: cut(this.lengths, count),
      terminated: cut(this.terminated, count),
      observations: cut(this.observations, (steps + count) * O),
      actions: cut(this.actions, steps * A),
      rewards: cut(this.rewards, steps),
      dones: cut(this.dones, steps),
    };
  }
}

/** The episodes of a batch, as views into its buffers (no copy). */
export function unpackEpisodes(packed: PackedEpisodes): EpisodeData[] {
  const { observationSize: O, actionSize: A } = packed;
  const episodes = new Array<EpisodeData>(packed.lengths.length);
  let step = 0;
  for (let i = 0; i < episodes.length; i++) {
    const length = packed.lengths[i]!;
    const at = step;
    step += length;
    episodes[i] = {
      length,
      observationSize: O,
      actionSize: A,
      observations: packed.observations.subarray((at + i) * O, (at + i + length + 1) * O),
      actions: packed.actions.subarray(at * A, (at + length) * A),
      rewards: packed.rewards.subarray(at, at + length),
      dones: packed.dones.subarray(at, at + length),
      terminated: packed.terminated[i] === 1,
    };
  }
  return episodes;
}
