import { describe, expect, it } from 'vitest';
import { createRandom } from '../random';
import { cartPoleDefaults, createCartPole } from './cartpole';
import { rollout } from './simulator';

describe('cart-pole', () => {
  it('steps the Barto–Sutton equations with explicit Euler', () => {
    const cartPole = createCartPole();
    const state = Float64Array.of(0.1, -0.2, 0.05, 0.3);
    const reward = cartPole.step(state, 0, Float32Array.of(1), 0);
    const [x, xDot, th, thDot] = [0.1, -0.2, 0.05, 0.3];
    const temp = (10 + 0.05 * thDot * thDot * Math.sin(th)) / 1.1;
    const thAcc =
      (9.8 * Math.sin(th) - Math.cos(th) * temp) /
      (0.5 * (4 / 3 - (0.1 * Math.cos(th) ** 2) / 1.1));
    const xAcc = temp - (0.05 * thAcc * Math.cos(th)) / 1.1;
    expect(Array.from(state)).toEqual([
      expect.closeTo(x + 0.02 * xDot, 12),
      expect.closeTo(xDot + 0.02 * xAcc, 12),
      expect.closeTo(th + 0.02 * thDot, 12),
      expect.closeTo(thDot + 0.02 * thAcc, 12),
    ]);
    expect(reward).toBe(1);
  });

  it('terminates when the pole passes the angle limit, not before', () => {
    const cartPole = createCartPole();
    const state = Float64Array.of(0, 0, 0.05, 0);
    const left = new Float32Array(1);
    let steps = 0;
    while (!cartPole.isTerminal(state, 0)) {
      expect(Math.abs(state[2]!)).toBeLessThanOrEqual(cartPoleDefaults.thetaThreshold);
      cartPole.step(state, 0, left, 0);
      steps++;
      expect(steps).toBeLessThan(100);
    }
    expect(state[2]!).toBeGreaterThan(cartPoleDefaults.thetaThreshold);
    expect(Math.abs(state[0]!)).toBeLessThan(cartPoleDefaults.xThreshold);
  });

  it('terminates when the cart leaves the track', () => {
    const cartPole = createCartPole();
    const state = Float64Array.of(2.39, 1, 0, 0);
    expect(cartPole.isTerminal(state, 0)).toBe(false);
    cartPole.step(state, 0, Float32Array.of(1), 0);
    expect(cartPole.isTerminal(state, 0)).toBe(true);
    expect(Math.abs(state[2]!)).toBeLessThan(cartPoleDefaults.thetaThreshold);
  });

  it('pushing against the lean keeps the pole up longer than pushing with it', () => {
    const cartPole = createCartPole();
    const survive = (policy: (theta: number) => number) => {
      const state = Float64Array.of(0, 0, 0.05, 0);
      const action = new Float32Array(1);
      let steps = 0;
      while (!cartPole.isTerminal(state, 0) && steps < 500) {
        action[0] = policy(state[2]!);
        cartPole.step(state, 0, action, 0);
        steps++;
      }
      return steps;
    };
    expect(survive((theta) => (theta > 0 ? 1 : 0))).toBeGreaterThan(
      survive((theta) => (theta > 0 ? 0 : 1)),
    );
  });

  it('ends random-policy episodes early, with the done flag on the terminal step', async () => {
    const episodes = await rollout(createCartPole(), {
      numEnvs: 16,
      episodeLength: 500,
      random: createRandom(3),
    });
    for (const episode of episodes) {
      expect(episode.terminated).toBe(true);
      expect(episode.length).toBeLessThan(500);
      expect(episode.observations).toHaveLength((episode.length + 1) * 4);
      expect(episode.dones.indexOf(1)).toBe(episode.length - 1);
      expect(Array.from(episode.rewards).every((r) => r === 1)).toBe(true);
      expect(Array.from(episode.actions).every((a) => a === 0 || a === 1)).toBe(true);
      const last = episode.observations.subarray(episode.length * 4);
      expect(Math.abs(last[0]!) > 2.4 || Math.abs(last[2]!) > cartPoleDefaults.thetaThreshold).toBe(
        true,
      );
    }
  });
});
