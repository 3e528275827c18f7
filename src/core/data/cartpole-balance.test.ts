import { describe, expect, it } from 'vitest';
import { createRandom } from '../random';
import { createCartPole } from './cartpole';
import { balanceDefaults, balancePolicy } from './cartpole-balance';
import { rollout } from './simulator';

const ENVS = 32;
const STEPS = 500;

async function lengths(policy?: ReturnType<typeof balancePolicy>): Promise<number[]> {
  const episodes = await rollout(createCartPole(), {
    numEnvs: ENVS,
    episodeLength: STEPS,
    random: createRandom(3),
    ...(policy ? { policy } : {}),
  });
  return episodes.map((e) => e.length);
}

describe('cart-pole linear state feedback', () => {
  it('keeps every pole up for the whole episode, where random pushes drop it within a few dozen steps', async () => {
    expect(await lengths(balancePolicy())).toEqual(Array<number>(ENVS).fill(STEPS));
    const random = await lengths();
    expect(Math.max(...random)).toBeLessThan(STEPS / 2);
  });

  it('pushes under a falling pole, and its gains decide: negated, the pole falls at once', async () => {
    const policy = balancePolicy();
    const actions = new Float32Array(2);
    void policy(Float32Array.of(0, 0, 0.05, 0, 0, 0, -0.05, 0), actions, 2);
    expect([...actions]).toEqual([1, 0]);
    const negated = balancePolicy({
      gain_x: -balanceDefaults.gain_x,
      gain_x_dot: -balanceDefaults.gain_x_dot,
      gain_theta: -balanceDefaults.gain_theta,
      gain_theta_dot: -balanceDefaults.gain_theta_dot,
    });
    expect(Math.max(...(await lengths(negated)))).toBeLessThan(30);
  });
});
