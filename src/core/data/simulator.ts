/**
 * Simulators: dynamics stepped over many environment instances in lockstep.
 * Each instance's state lives at an offset in one flat Float64Array, so a
 * producer steps thousands of envs without allocating per step; the cost is
 * that dynamics read and write by offset instead of through objects.
 * `rollout` turns N lockstep instances into N episodes; an instance that
 * terminates stops there while the others go on.
 */
import { RunCancelledError } from '../engine/executor';
import type { Random } from '../random';
import type { EpisodeData } from './episode';

export const simulatorKinds = ['pendulum', 'cartpole'] as const;
export type SimulatorKind = (typeof simulatorKinds)[number];

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
  /** Checked every step; an abort throws `RunCancelledError`. */
  signal?: AbortSignal;
}

/** Step `numEnvs` instances from fresh initial states to one episode each. */
export async function rollout(dynamics: Dynamics, options: RolloutOptions): Promise<EpisodeData[]> {
  const { numEnvs, episodeLength: steps, random, signal } = options;
  const { stateSize: S, observationSize: O, actionSize: A } = dynamics;
  const policy = options.policy ?? randomPolicy(dynamics, random);
  const state = new Float64Array(numEnvs * S);
  const observations = new Float32Array(numEnvs * O);
  const actions = new Float32Array(numEnvs * A);
  const episodes = Array.from({ length: numEnvs }, () => ({
    length: steps,
    observations: new Float32Array((steps + 1) * O),
    actions: new Float32Array(steps * A),
    rewards: new Float32Array(steps),
    dones: new Uint8Array(steps),
    terminated: false,
    running: true,
  }));
  for (let i = 0; i < numEnvs; i++) {
    dynamics.reset(state, i * S, random);
    dynamics.observe(state, i * S, observations, i * O);
    episodes[i]!.observations.set(observations.subarray(i * O, (i + 1) * O));
  }
  let running = numEnvs;
  for (let t = 0; t < steps && running > 0; t++) {
    if (signal?.aborted) throw new RunCancelledError();
    const pending = policy(observations, actions, numEnvs);
    if (pending) await pending;
    for (let i = 0; i < numEnvs; i++) {
      const episode = episodes[i]!;
      if (!episode.running) continue;
      episode.rewards[t] = dynamics.step(state, i * S, actions, i * A);
      episode.actions.set(actions.subarray(i * A, (i + 1) * A), t * A);
      dynamics.observe(state, i * S, observations, i * O);
      episode.observations.set(observations.subarray(i * O, (i + 1) * O), (t + 1) * O);
      const terminated = dynamics.isTerminal(state, i * S);
      if (terminated || t === steps - 1) {
        episode.dones[t] = 1;
        episode.running = false;
        episode.terminated = terminated;
        episode.length = t + 1;
        running--;
      }
    }
  }
  return episodes.map((e) => ({
    length: e.length,
    observationSize: O,
    actionSize: A,
    observations: e.length === steps ? e.observations : e.observations.slice(0, (e.length + 1) * O),
    actions: e.length === steps ? e.actions : e.actions.slice(0, e.length * A),
    rewards: e.length === steps ? e.rewards : e.rewards.slice(0, e.length),
    dones: e.length === steps ? e.dones : e.dones.slice(0, e.length),
    terminated: e.terminated,
  }));
}
