import { describe, expect, it } from 'vitest';
import { createRandom } from '../random';
import { createCartPole } from './cartpole';
import { createPendulum } from './pendulum';
import { createSimulatorProducers, SimulatorProducer } from './simulator-producer';
import { rollout, type Policy } from './simulator';

const pendulum = createPendulum();

describe('rollout', () => {
  it('steps numEnvs pendulums to episodes of the configured length', async () => {
    const episodes = await rollout(pendulum, {
      numEnvs: 3,
      episodeLength: 20,
      random: createRandom(1),
    });
    expect(episodes).toHaveLength(3);
    for (const e of episodes) {
      expect(e.length).toBe(20);
      expect(e.observations).toHaveLength(21 * 3);
      expect(e.actions).toHaveLength(20);
      expect(Array.from(e.dones)).toEqual([...Array<number>(19).fill(0), 1]);
      expect(e.terminated).toBe(false);
      expect(Array.from(e.rewards).every((r) => r <= 0)).toBe(true);
      expect(Array.from(e.actions).every((a) => Math.abs(a) <= 2)).toBe(true);
    }
  });

  it('records transitions the dynamics reproduce: obs[t+1] = step(obs[t], action[t])', async () => {
    const [episode] = await rollout(pendulum, {
      numEnvs: 1,
      episodeLength: 30,
      random: createRandom(9),
    });
    const obs = episode!.observations;
    for (let t = 0; t < 30; t++) {
      const state = Float64Array.of(Math.atan2(obs[t * 3 + 1]!, obs[t * 3]!), obs[t * 3 + 2]!);
      pendulum.step(state, 0, episode!.actions.subarray(t, t + 1), 0);
      const next = new Float32Array(3);
      pendulum.observe(state, 0, next, 0);
      for (let k = 0; k < 3; k++) expect(next[k]).toBeCloseTo(obs[(t + 1) * 3 + k]!, 4);
    }
  });

  it('is deterministic for a seed, and a different seed gives different episodes', async () => {
    const roll = (seed: number) =>
      rollout(createCartPole(), { numEnvs: 4, episodeLength: 50, random: createRandom(seed) });
    const [a, b, c] = await Promise.all([roll(7), roll(7), roll(8)]);
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
  });

  it('uses an injected policy, sync or async, for every instance', async () => {
    const seen: number[] = [];
    const constant: Policy = (_obs, actions, numEnvs) => {
      seen.push(numEnvs);
      actions.fill(1.5);
      return undefined;
    };
    const [e] = await rollout(pendulum, {
      numEnvs: 2,
      episodeLength: 5,
      random: createRandom(1),
      policy: constant,
    });
    expect(Array.from(e!.actions)).toEqual([1.5, 1.5, 1.5, 1.5, 1.5]);
    expect(seen).toEqual([2, 2, 2, 2, 2]);
    const asyncPolicy: Policy = async (_obs, actions) => {
      await Promise.resolve();
      actions.fill(-1);
    };
    const [f] = await rollout(pendulum, {
      numEnvs: 1,
      episodeLength: 3,
      random: createRandom(1),
      policy: asyncPolicy,
    });
    expect(Array.from(f!.actions)).toEqual([-1, -1, -1]);
  });

  it('stops when its signal aborts', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      rollout(pendulum, {
        numEnvs: 1,
        episodeLength: 5,
        random: createRandom(1),
        signal: controller.signal,
      }),
    ).rejects.toMatchObject({ code: 'cancelled' });
  });

  it('stops after the step whose awaited policy saw the abort, not at the end', async () => {
    const controller = new AbortController();
    let steps = 0;
    // A policy on a device: the run is cancelled while the third step awaits it.
    const policy: Policy = async (_obs, actions) => {
      await Promise.resolve();
      if (++steps === 3) controller.abort();
      actions.fill(0);
    };
    await expect(
      rollout(pendulum, {
        numEnvs: 2,
        episodeLength: 50,
        random: createRandom(1),
        policy,
        signal: controller.signal,
      }),
    ).rejects.toMatchObject({ code: 'cancelled' });
    expect(steps).toBe(3);
  });
});

describe('SimulatorProducer', () => {
  const signal = new AbortController().signal;

  it('emits the same episodes for (seed, producer, generation), whatever ran before', async () => {
    const [p0, p1] = createSimulatorProducers(2, {
      dynamics: pendulum,
      seed: 5,
      episodeLength: 10,
    });
    const first = await p0!.produce({ generation: 2, count: 3 }, signal);
    await p0!.produce({ generation: 1, count: 3 }, signal);
    const again = await p0!.produce({ generation: 2, count: 3 }, signal);
    expect(again).toEqual(first);
    expect(await p1!.produce({ generation: 2, count: 3 }, signal)).not.toEqual(first);
    expect(await p0!.produce({ generation: 3, count: 3 }, signal)).not.toEqual(first);
  });

  it('makes exactly the requested count in rollouts of `parallel` instances', async () => {
    const producer = new SimulatorProducer({
      index: 0,
      dynamics: pendulum,
      seed: 1,
      episodeLength: 4,
      parallel: 2,
    });
    expect(await producer.produce({ generation: 1, count: 5 }, signal)).toHaveLength(5);
  });

  it('stops on abort and refuses to produce once closed', async () => {
    const controller = new AbortController();
    const producer = new SimulatorProducer({
      index: 0,
      dynamics: pendulum,
      seed: 1,
      episodeLength: 4,
      parallel: 1,
      yieldNow: () => {
        controller.abort();
        return Promise.resolve();
      },
    });
    await expect(
      producer.produce({ generation: 1, count: 3 }, controller.signal),
    ).rejects.toMatchObject({ code: 'cancelled' });
    producer.close();
    await expect(producer.produce({ generation: 1, count: 1 }, signal)).rejects.toThrow(/closed/);
  });
});
