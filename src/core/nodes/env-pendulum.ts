/**
 * `env.pendulum`: torque-limited pendulum swing-up, as an environment for
 * data engine producers. Its `controller` policy swings the rod up and
 * balances it (energy shaping, then PD), with the gains below.
 */
import { defineNodeKind } from '../catalog/kind';
import { swingUpDefaults } from '../data/pendulum-swing-up';
import { environmentParams, environmentSpec } from '../live/environment';

export const envPendulum = defineNodeKind({
  kind: 'env.pendulum',
  version: 1,
  // Never cached: a live environment: what it yields depends on when it is read.
  cache: 'never',
  title: 'Pendulum',
  category: 'data',
  description:
    "Torque-limited pendulum swing-up (Gym's Pendulum-v1 dynamics): observation [cos θ, sin θ, θ̇], action [torque]. Never terminates. Connect it to a data engine, whose producers step it.",
  params: {
    ...environmentParams,
    swing_gain: {
      type: 'number',
      default: swingUpDefaults.swing_gain,
      min: 0,
      max: 100,
      description:
        'Controller policy: torque per unit of (energy short of upright × angular speed) while swinging up.',
    },
    balance_kp: {
      type: 'number',
      default: swingUpDefaults.balance_kp,
      min: 0,
      max: 1000,
      description: 'Controller policy: torque per radian from upright while balancing.',
    },
    balance_kd: {
      type: 'number',
      default: swingUpDefaults.balance_kd,
      min: 0,
      max: 1000,
      description: 'Controller policy: torque per rad/s of swing while balancing.',
    },
  },
  inputs: [],
  outputs: [
    {
      name: 'environment',
      type: 'environment',
      description: 'The simulator, its instances per producer, episode length, policy and seed.',
    },
  ],
  execute(ctx) {
    const { swing_gain, balance_kp, balance_kd } = ctx.params;
    ctx.emit(
      'environment',
      environmentSpec('pendulum', ctx.params, { swing_gain, balance_kp, balance_kd }),
    );
    return Promise.resolve();
  },
});
