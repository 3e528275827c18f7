/**
 * Simulators: dynamics stepped over many environment instances in lockstep.
 * Each instance's state lives at an offset in one flat Float64Array, and a
 * rollout writes its steps straight into packed episode buffers, so a
 * producer steps thousands of envs without allocating per step; the cost is
 * that dynamics read and write by offset instead of through objects.
 * `rollout` turns N lockstep instances into N episodes; an instance that
 * terminates stops there while the others go on.
 */
import { runCancelled } from '../runtime/cancel';
import type { Random } from '../random';
import type { SimulatorKind } from './environment-spec';
import type { EpisodeData } from './episode';
import { PackedEpisodeWriter, unpackEpisodes } from './packed-episodes';

/** The physics of one kind of environment, over flat state arrays. */
export interface Dynamics {
  readonly kind: SimulatorKind;
  readonly stateSize: number;
  readonly observationSize: number;
  readonly actionSize: number;
  /** Draw an initial state into `state[at …]`. */
  reset(state: Float64Array, at: number, random: Random): void;
  /**
   * Advance the instance at `state[at …]` by one step with the action at
   * `actions[a …]`; the action is rewritten in place to what the env applied
   * (clipped, discretised). Returns the step's reward.
   */
  step(state: Float64Array, at: number, actions: Float32Array, a: number): number;
  /** Whether the instance has reached a terminal state. */
  isTerminal(state: Float64Array, at: number): boolean;
  /** Write the instance's observation to `out[o …]`. */
  observe(state: Float64Array, at: number, out: Float32Array, o: number): void;
  /** Write a uniformly random valid action to `out[a …]`. */
  randomAction(random: Random, out: Float32Array, a: number): void;
}

/**
 * Chooses actions for `numEnvs` instances at once: reads `numEnvs ×
 * observationSize` observations, writes `numEnvs × actionSize` actions. May
 * be async (a model on the device); a sync policy costs no await per step.
 */
export type Policy = (
  observations: Float32Array,
  actions: Float32Array,
  numEnvs: number,
) => PromiseLike<void> | undefined;

/** A policy that acts uniformly at random. */
export function randomPolicy(dynamics: Dynamics, random: Random): Policy {
  return (_observations, actions, numEnvs) => {
    for (let i = 0; i < numEnvs; i++)
      dynamics.randomAction(random, actions, i * dynamics.actionSize);
    return undefined;
  };
}

export interface RolloutOptions {
  /** Instances stepped in lockstep; one episode each. */
  numEnvs: number;
  /** Steps after which an episode ends if it has not terminated. */
  episodeLength: number;
  /** Draws the initial states (and the actions, without a `policy`). */
  random: Random;
  /** Defaults to `randomPolicy` over `random`. */
  policy?: Policy;
  /**
   * Checked before the first step and after every step whose policy was
   * awaited (the only points where anything else runs, so the only points
   * where it can have been aborted); an abort throws a `cancelled` error.
   */
  signal?: AbortSignal;
}

/** Step `numEnvs` instances from fresh initial states to one episode each. */
export async function rollout(dynamics: Dynamics, options: RolloutOptions): Promise<EpisodeData[]> {
  const { observationSize, actionSize } = dynamics;
  const into = new PackedEpisodeWriter(
    observationSize,
    actionSize,
    options.numEnvs,
    options.episodeLength,
  );
  await rolloutInto(dynamics, options, into);
  return unpackEpisodes(into.finish());
}

/**
 * `rollout`, writing the `numEnvs` episodes into `into` after those it
 * holds. Episode `i` is written at the place it would have if every episode
 * before it ran the full length; the ones that ended early are then moved
 * up, so the batch stays packed end to end. Nothing is allocated per step.
 */
export async function rolloutInto(
  dynamics: Dynamics,
  options: RolloutOptions,
  into: PackedEpisodeWriter,
): Promise<void> {
  const { numEnvs, episodeLength: steps, random, signal } = options;
  const { stateSize: S, observationSize: O, actionSize: A } = dynamics;
  if (into.observationSize !== O || into.actionSize !== A || into.episodeLength < steps)
    throw new RangeError(
      `the packed batch holds episodes of ${into.episodeLength} steps with ${into.observationSize} observations and ${into.actionSize} actions per step, not ${steps} steps of ${dynamics.kind}`,
    );
  if (into.count + numEnvs > into.capacity)
    throw new RangeError(
      `the packed batch has room for ${into.capacity - into.count} more episodes, not ${numEnvs}`,
    );
  const policy = options.policy ?? randomPolicy(dynamics, random);
  const state = new Float64Array(numEnvs * S);
  const observations = new Float32Array(numEnvs * O);
  const actions = new Float32Array(numEnvs * A);
  const running = new Uint8Array(numEnvs);
  const { observations: obs, actions: acts, rewards, dones, lengths, terminated } = into;
  const first = into.count;
  // Episode i's first step, as if every episode before it ran all `steps`.
  const base = into.steps;
  for (let i = 0; i < numEnvs; i++) {
    dynamics.reset(state, i * S, random);
    dynamics.observe(state, i * S, observations, i * O);
    const o = (base + i * steps + first + i) * O;
    for (let k = 0; k < O; k++) obs[o + k] = observations[i * O + k]!;
    running[i] = 1;
  }
  let live = numEnvs;
  if (signal?.aborted) throw runCancelled();
  for (let t = 0; t < steps && live > 0; t++) {
    const pending = policy(observations, actions, numEnvs);
    if (pending) {
      await pending;
      // Only a step that awaits lets other code run, and so abort the signal.
      if (signal?.aborted) throw runCancelled();
    }
    const last = t === steps - 1;
    for (let i = 0; i < numEnvs; i++) {
      if (running[i] === 0) continue;
      const r = base + i * steps + t;
      rewards[r] = dynamics.step(state, i * S, actions, i * A);
      for (let k = 0; k < A; k++) acts[r * A + k] = actions[i * A + k]!;
      dynamics.observe(state, i * S, observations, i * O);
      const o = (r + 1 + first + i) * O;
      for (let k = 0; k < O; k++) obs[o + k] = observations[i * O + k]!;
      const ended = dynamics.isTerminal(state, i * S);
      dones[r] = ended || last ? 1 : 0;
      if (ended || last) {
        running[i] = 0;
        lengths[first + i] = t + 1;
        terminated[first + i] = ended ? 1 : 0;
        live--;
      }
    }
  }
  // Move up the episodes behind one that ended early.
  let at = base;
  for (let i = 0; i < numEnvs; i++) {
    const length = lengths[first + i]!;
    const from = base + i * steps;
    if (from !== at) {
      obs.copyWithin(
        (at + first + i) * O,
        (from + first + i) * O,
        (from + first + i + length + 1) * O,
      );
      acts.copyWithin(at * A, from * A, (from + length) * A);
      rewards.copyWithin(at, from, from + length);
      dones.copyWithin(at, from, from + length);
    }
    at += length;
  }
  into.count += numEnvs;
  into.steps = at;
}
