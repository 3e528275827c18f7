/** `env.pendulum`: torque-limited pendulum swing-up, as an environment for data engine producers. */
import { defineNodeKind } from '../catalog/kind';
import { environmentParams, environmentSpec } from '../live/environment';

export const envPendulum = defineNodeKind({
  kind: 'env.pendulum',
  title: 'Pendulum',
  category: 'data',
  description:
    "Torque-limited pendulum swing-up (Gym's Pendulum-v1 dynamics): observation [cos θ, sin θ, θ̇], action [torque]. Never terminates. Connect it to a data engine, whose producers step it.",
  params: environmentParams,
  inputs: [],
  outputs: [
    {
      name: 'environment',
      type: 'environment',
      description: 'The simulator, its instances per producer, episode length, policy and seed.',
    },
  ],
  execute(ctx) {
    ctx.emit('environment', environmentSpec('pendulum', ctx.params));
    return Promise.resolve();
  },
});
