/** `env.cartpole`: cart-pole balancing, as an environment for data engine producers. */
import { defineNodeKind } from '../catalog/kind';
import { environmentParams, environmentSpec } from '../live/environment';

export const envCartPole = defineNodeKind({
  kind: 'env.cartpole',
  title: 'Cart-pole',
  category: 'data',
  description:
    "Cart-pole balancing (Gym's CartPole-v1 constants): observation [x, ẋ, θ, θ̇], action [push] (1 right, 0 left). An episode terminates when the pole falls or the cart leaves the track. Connect it to a data engine, whose producers step it.",
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
    ctx.emit('environment', environmentSpec('cartpole', ctx.params));
    return Promise.resolve();
  },
});
