/**
 * Linear state feedback for the cart-pole, as a producer's policy: push
 * right when k·[x, ẋ, θ, θ̇] > 0, else left. The cart can only be pushed at
 * full force either way, so the linear law decides only the direction — a
 * bang-bang controller that keeps the pole up for as long as its gains allow.
 * With θ's and θ̇'s gains positive it pushes under a falling pole; small
 * positive gains on x and ẋ lean the pole back towards the centre, which
 * keeps the cart on the track. It reads only the observation and draws
 * nothing, so it is deterministic given the initial states.
 */
import type { Policy } from './simulator';

export interface BalanceGains {
  gain_x: number;
  gain_x_dot: number;
  gain_theta: number;
  gain_theta_dot: number;
}

export const balanceDefaults: Readonly<BalanceGains> = {
  gain_x: 0.1,
  gain_x_dot: 0.5,
  gain_theta: 10,
  gain_theta_dot: 2,
};

export function balancePolicy(gains: Readonly<BalanceGains> = balanceDefaults): Policy {
  return (observations, actions, numEnvs) => {
    for (let i = 0; i < numEnvs; i++) {
      const o = i * 4;
      const drive =
        gains.gain_x * observations[o]! +
        gains.gain_x_dot * observations[o + 1]! +
        gains.gain_theta * observations[o + 2]! +
        gains.gain_theta_dot * observations[o + 3]!;
      actions[i] = drive > 0 ? 1 : 0;
    }
    return undefined;
  };
}
