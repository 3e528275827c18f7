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

/**
 * One episode of a packed batch. Its arrays are views into the batch's,
 * made when first read and then kept: a batch of thousands of episodes
 * lands as one small object each instead of five (the episode and four
 * views), which is most of what taking a reply costs the thread that
 * receives it, and an episode the consumer never samples never gets views
 * at all. Once the batch's buffers are given back (transferred away) every
 * array reads empty, as a view made before would: a read after the release
 * shows missing data, never another episode's.
 *
 * Its own fields are the batch and the episode's place in it, so two
 * episodes compare equal (field by field) exactly when their batches hold
 * the same data and they sit at the same place.
 */
class PackedEpisode implements EpisodeData {
  readonly observationSize: number;
  readonly actionSize: number;
  #observations: Float32Array | undefined;
  #actions: Float32Array | undefined;
  #rewards: Float32Array | undefined;
  #dones: Uint8Array | undefined;

  constructor(
    readonly batch: PackedEpisodes,
    /** The episode's index in the batch. */
    readonly index: number,
    /** The batch's steps before this episode. */
    readonly step: number,
    readonly length: number,
    readonly terminated: boolean,
  ) {
    this.observationSize = batch.observationSize;
    this.actionSize = batch.actionSize;
  }

  get observations(): Float32Array {
    const O = this.observationSize;
    const row = this.step + this.index; // one more observation row than steps per episode before it
    return (this.#observations ??= view(
      this.batch.observations,
      row * O,
      (row + this.length + 1) * O,
    ));
  }

  get actions(): Float32Array {
    const A = this.actionSize;
    return (this.#actions ??= view(
      this.batch.actions,
      this.step * A,
      (this.step + this.length) * A,
    ));
  }

  get rewards(): Float32Array {
    return (this.#rewards ??= view(this.batch.rewards, this.step, this.step + this.length));
  }

  get dones(): Uint8Array {
    return (this.#dones ??= view(this.batch.dones, this.step, this.step + this.length));
  }
}

/** `array[from … to)` as a view; an array whose buffer was transferred away stays empty. */
function view<T extends Float32Array | Uint8Array>(array: T, from: number, to: number): T {
  return array.length === 0 ? array : (array.subarray(from, to) as T);
}

/** The episodes of a batch, as views into its buffers (no copy), made when first read. */
export function unpackEpisodes(packed: PackedEpisodes): EpisodeData[] {
  const { lengths, terminated } = packed;
  const episodes = new Array<EpisodeData>(lengths.length);
  let step = 0;
  for (let i = 0; i < episodes.length; i++) {
    const length = lengths[i]!;
    episodes[i] = new PackedEpisode(packed, i, step, length, terminated[i] === 1);
    step += length;
  }
  return episodes;
}
