import { describe, expect, it } from 'vitest';
import { createRandom } from '../random';
import { createPendulum } from './pendulum';
import { swingUpDefaults, swingUpPolicy } from './pendulum-swing-up';
import { rollout } from './simulator';

const ENVS = 32;
const STEPS = 200;

async function episodes(policy?: ReturnType<typeof swingUpPolicy>) {
  return rollout(createPendulum(), {
    numEnvs: ENVS,
    episodeLength: STEPS,
    random: createRandom(7),
    ...(policy ? { policy } : {}),
  });
}

const total = (rewards: Float32Array) => rewards.reduce((a, b) => a + b, 0);
/** cos θ of the last observation: 1 is upright. */
const finalCos = (e: { observations: Float32Array }) => e.observations[e.observations.length - 3]!;

describe('pendulum swing-up controller', () => {
  it('swings every rod up and holds it, earning far more than random torques', async () => {
    const controlled = await episodes(swingUpPolicy());
    const random = await episodes();
    // Every instance ends upright (within ~8°), from random starts that include hanging down.
    for (const e of controlled) expect(finalCos(e)).toBeGreaterThan(0.99);
    expect(random.filter((e) => finalCos(e) > 0.99).length).toBeLessThan(ENVS / 4);
    const mean = (es: typeof random) => es.reduce((s, e) => s + total(e.rewards), 0) / es.length;
    expect(mean(controlled)).toBeGreaterThan(mean(random) / 4);
  });

  it('respects the torque limit and is deterministic', async () => {
    const a = await episodes(swingUpPolicy());
    const b = await episodes(swingUpPolicy());
    for (const [i, e] of a.entries()) {
      expect(e.actions).toEqual(b[i]!.actions);
      for (const u of e.actions) expect(Math.abs(u)).toBeLessThanOrEqual(2);
    }
  });

  it('with no swing gain it cannot pump energy, so a rod hanging down stays down', () => {
    const policy = swingUpPolicy({ ...swingUpDefaults, swing_gain: 0 });
    const pendulum = createPendulum();
    const state = Float64Array.of(Math.PI, 0.1);
    const obs = new Float32Array(3);
    const action = new Float32Array(1);
    for (let t = 0; t < STEPS; t++) {
      pendulum.observe(state, 0, obs, 0);
      void policy(obs, action, 1);
      pendulum.step(state, 0, action, 0);
    }
    pendulum.observe(state, 0, obs, 0);
    expect(obs[0]).toBeLessThan(0);
  });
});
