/**
 * Environments as the nodes make them and producers run them: the params
 * every environment node shares (so pendulum and cart-pole read the same in
 * the inspector), the `EnvironmentSpec` built from them, and the dynamics,
 * policy and producer a spec stands for. The spec itself is plain data
 * (data/environment-spec.ts); whoever runs a producer, in this thread or in
 * a worker, rebuilds the rest from it here.
 */
import { createCartPole } from '../data/cartpole';
import { balanceDefaults, balancePolicy } from '../data/cartpole-balance';
import { createPendulum } from '../data/pendulum';
import { swingUpDefaults, swingUpPolicy } from '../data/pendulum-swing-up';
import { SimulatorProducer } from '../data/simulator-producer';
import type { Dynamics, Policy } from '../data/simulator';
import { FlowbenchError } from '../errors';
import {
  environmentPolicies,
  type EnvironmentPolicy,
  type EnvironmentSpec,
  type SimulatorKind,
} from '../data/environment-spec';

/** The params every environment node declares. */
export const environmentParams = {
  num_envs: {
    type: 'int',
    default: 8,
    min: 1,
    max: 4096,
    description: 'Instances each producer steps in lockstep (one episode each per rollout).',
  },
  episode_length: {
    type: 'int',
    default: 64,
    min: 1,
    max: 100_000,
    description: 'Steps per episode, unless the environment terminates first.',
  },
  policy: {
    type: 'enum',
    options: environmentPolicies,
    default: 'random',
    description:
      "How actions are chosen: random (uniformly over the valid actions) or controller (the environment's feedback controller, with the gains below; deterministic).",
  },
  seed: {
    type: 'int',
    default: 0,
    min: 0,
    description:
      'Seed of initial states and actions; each producer and generation derives its own.',
  },
} as const;

/** The dynamics of a simulator, with its default physical constants. */
export function createDynamics(simulator: SimulatorKind): Dynamics {
  switch (simulator) {
    case 'pendulum':
      return createPendulum();
    case 'cartpole':
      return createCartPole();
    default: // a spec that came through a message, unchecked
      throw new Error(`unknown simulator '${String(simulator)}'`);
  }
}

/** An environment value from an environment node's params. */
export function environmentSpec(
  simulator: SimulatorKind,
  params: { num_envs: number; episode_length: number; policy: EnvironmentPolicy; seed: number },
  gains: Readonly<Record<string, number>> = {},
): EnvironmentSpec {
  const dynamics = createDynamics(simulator);
  return {
    kind: 'environment',
    simulator,
    numEnvs: params.num_envs,
    episodeLength: params.episode_length,
    policy: params.policy,
    gains: { ...gains },
    seed: params.seed,
    observationSize: dynamics.observationSize,
    actionSize: dynamics.actionSize,
  };
}

/** Producer `index` of `environment`, running in the calling thread. */
export function createEnvironmentProducer(
  environment: EnvironmentSpec,
  index: number,
  yieldNow?: () => Promise<void>,
): SimulatorProducer {
  return new SimulatorProducer({
    index,
    dynamics: createDynamics(environment.simulator),
    seed: environment.seed,
    episodeLength: environment.episodeLength,
    parallel: environment.numEnvs,
    ...(environment.policy === 'controller' ? { policy: controllerPolicy(environment) } : {}),
    ...(yieldNow ? { yieldNow } : {}),
  });
}

/** The environment's feedback controller with the spec's gains (defaults for any it lacks). */
export function controllerPolicy(environment: EnvironmentSpec): Policy {
  switch (environment.simulator) {
    case 'pendulum':
      return swingUpPolicy({ ...swingUpDefaults, ...environment.gains });
    case 'cartpole':
      return balancePolicy({ ...balanceDefaults, ...environment.gains });
    default: // a spec that came through a message, unchecked
      throw new Error(`unknown simulator '${String(environment.simulator)}'`);
  }
}

export function expectEnvironment(value: unknown, port: string): EnvironmentSpec {
  if (
    typeof value === 'object' &&
    value !== null &&
    (value as { kind?: unknown }).kind === 'environment'
  )
    return value as EnvironmentSpec;
  throw new FlowbenchError('node-input', { problem: `input '${port}' expected an environment` });
}
