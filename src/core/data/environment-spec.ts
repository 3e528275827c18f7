/**
 * An environment as it travels along an edge and into a producer: which
 * simulator, how many instances a producer steps in lockstep, how long an
 * episode runs, the policy (and its gains) and the seed. It is plain data on
 * purpose: it crosses into producer workers by structured clone, and each
 * worker rebuilds the dynamics from it, since functions cannot cross. It
 * imports nothing: the node catalog names it (a node's producer host is
 * called with it) without reaching the simulators.
 */

/** The simulators an environment can run. */
export const simulatorKinds = ['pendulum', 'cartpole'] as const;
export type SimulatorKind = (typeof simulatorKinds)[number];

/**
 * How a producer chooses actions: `random`, uniformly over the valid actions;
 * `controller`, the environment's own feedback controller with the gains on
 * its node (swing-up for the pendulum, linear state feedback for cart-pole).
 */
export const environmentPolicies = ['random', 'controller'] as const;
export type EnvironmentPolicy = (typeof environmentPolicies)[number];

/** The value on an `environment` port. */
export interface EnvironmentSpec {
  readonly kind: 'environment';
  readonly simulator: SimulatorKind;
  /** Instances each producer steps in lockstep. */
  readonly numEnvs: number;
  /** Steps after which an episode ends unless the env terminated first. */
  readonly episodeLength: number;
  readonly policy: EnvironmentPolicy;
  /** The controller's gains by name (see the environment's node); used by the `controller` policy. */
  readonly gains: Readonly<Record<string, number>>;
  /** The run's seed for this environment; producers derive theirs from it. */
  readonly seed: number;
  readonly observationSize: number;
  readonly actionSize: number;
}
