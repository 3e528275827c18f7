/**
 * `env.cartpole`: cart-pole balancing, as an environment for data engine
 * producers. Its `controller` policy is linear state feedback with the gains
 * below.
 */
import { defineNodeKind } from '../catalog/kind';
import { balanceDefaults, type BalanceGains } from '../data/cartpole-balance';
import { environmentParams, environmentSpec } from '../live/environment';

const gain = (name: keyof BalanceGains, what: string) =>
  ({
    type: 'number',
    default: balanceDefaults[name],
    min: -1000,
    max: 1000,
    description: `Controller policy: weight of ${what} in the push (right when the weighted sum is > 0).`,
  }) as const;

export const envCartPole = defineNodeKind({
  kind: 'env.cartpole',
  version: 1,
  // Never cached: a live environment: what it yields depends on when it is read.
  cache: 'never',
  title: 'Cart-pole',
  category: 'data',
  description:
    "Cart-pole balancing (Gym's CartPole-v1 constants): observation [x, ẋ, θ, θ̇], action [push] (1 right, 0 left). An episode terminates when the pole falls or the cart leaves the track. Connect it to a data engine, whose producers step it.",
  params: {
    ...environmentParams,
    gain_x: gain('gain_x', 'the cart position x'),
    gain_x_dot: gain('gain_x_dot', 'the cart speed ẋ'),
    gain_theta: gain('gain_theta', 'the pole angle θ'),
    gain_theta_dot: gain('gain_theta_dot', 'the pole’s angular speed θ̇'),
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
    const { gain_x, gain_x_dot, gain_theta, gain_theta_dot } = ctx.params;
    ctx.emit(
      'environment',
      environmentSpec('cartpole', ctx.params, { gain_x, gain_x_dot, gain_theta, gain_theta_dot }),
    );
    return Promise.resolve();
  },
});
