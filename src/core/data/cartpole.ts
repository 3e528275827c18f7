/**
 * Cart-pole: the classic Barto, Sutton & Anderson (1983) balancing task, with
 * Gym's `CartPole-v1` constants and explicit Euler steps. A push of ±force
 * moves the cart; the episode terminates when the pole leans past the angle
 * limit or the cart leaves the track. Reward 1 per step, the last included.
 *
 * State and observation `[x, ẋ, θ, θ̇]` (θ from upright); action `[push]`,
 * 1 = right, 0 = left (anything ≥ 0.5 pushes right).
 */
import type { Random } from '../random';
import type { Dynamics } from './simulator';

export interface CartPoleParams {
  gravity: number;
  massCart: number;
  massPole: number;
  /** Half the pole's length. */
  halfLength: number;
  forceMag: number;
  /** Seconds per step. */
  tau: number;
  /** Radians from upright at which the episode terminates. */
  thetaThreshold: number;
  /** Cart position at which the episode terminates. */
  xThreshold: number;
}

export const cartPoleDefaults: Readonly<CartPoleParams> = {
  gravity: 9.8,
  massCart: 1,
  massPole: 0.1,
  halfLength: 0.5,
  forceMag: 10,
  tau: 0.02,
  thetaThreshold: (12 * 2 * Math.PI) / 360,
  xThreshold: 2.4,
};

export function createCartPole(overrides: Partial<CartPoleParams> = {}): Dynamics {
  const p: CartPoleParams = { ...cartPoleDefaults, ...overrides };
  const totalMass = p.massCart + p.massPole;
  const poleMassLength = p.massPole * p.halfLength;
  return {
    kind: 'cartpole',
    stateSize: 4,
    observationSize: 4,
    actionSize: 1,
    reset(state: Float64Array, at: number, random: Random) {
      for (let k = 0; k < 4; k++) state[at + k] = (2 * random() - 1) * 0.05;
    },
    step(state: Float64Array, at: number, actions: Float32Array, a: number) {
      const right = actions[a]! >= 0.5;
      actions[a] = right ? 1 : 0;
      const force = right ? p.forceMag : -p.forceMag;
      const x = state[at]!;
      const xDot = state[at + 1]!;
      const theta = state[at + 2]!;
      const thetaDot = state[at + 3]!;
      const cos = Math.cos(theta);
      const sin = Math.sin(theta);
      const temp = (force + poleMassLength * thetaDot * thetaDot * sin) / totalMass;
      const thetaAcc =
        (p.gravity * sin - cos * temp) /
        (p.halfLength * (4 / 3 - (p.massPole * cos * cos) / totalMass));
      const xAcc = temp - (poleMassLength * thetaAcc * cos) / totalMass;
      state[at] = x + p.tau * xDot;
      state[at + 1] = xDot + p.tau * xAcc;
      state[at + 2] = theta + p.tau * thetaDot;
      state[at + 3] = thetaDot + p.tau * thetaAcc;
      return 1;
    },
    isTerminal(state: Float64Array, at: number) {
      const x = state[at]!;
      const theta = state[at + 2]!;
      return Math.abs(x) > p.xThreshold || Math.abs(theta) > p.thetaThreshold;
    },
    observe(state: Float64Array, at: number, out: Float32Array, o: number) {
      for (let k = 0; k < 4; k++) out[o + k] = state[at + k]!;
    },
    randomAction(random: Random, out: Float32Array, a: number) {
      out[a] = random() < 0.5 ? 0 : 1;
    },
  };
}
