import { describe, expect, it } from 'vitest';
import { BufferPool } from './buffer-pool';
import { createCartPole } from './cartpole';
import { unpackEpisodes } from './packed-episodes';
import { createPendulum } from './pendulum';
import { SimulatorProducer } from './simulator-producer';

const live = new AbortController().signal;

describe('BufferPool', () => {
  it('hands back a buffer given to it when it fits, and a new one otherwise', () => {
    const pool = new BufferPool();
    const given = new ArrayBuffer(1000);
    pool.give([given]);
    expect(pool.take(2000)).not.toBe(given); // too small
    expect(pool.take(400)).not.toBe(given); // more than twice what is asked: kept for a bigger batch
    expect(pool.take(800)).toBe(given);
    expect(pool.size).toBe(0);
    expect(pool.take(800).byteLength).toBe(800);
  });

  it('drops detached buffers and keeps at most maxBuffers, the newest', () => {
    const pool = new BufferPool(2);
    const detached = new ArrayBuffer(8);
    structuredClone(detached, { transfer: [detached] });
    const [a, b, c] = [new ArrayBuffer(8), new ArrayBuffer(8), new ArrayBuffer(8)];
    pool.give([detached, a, b, c]);
    expect(pool.size).toBe(2);
    const taken = [pool.take(8), pool.take(8)];
    expect(taken.includes(b) && taken.includes(c)).toBe(true);
    expect(pool.take(8)).not.toBe(a);
  });
});

describe('episodes written into packed buffers', () => {
  it('are the same when the buffers held other data before (nothing stale shows through)', async () => {
    // Cart-poles that fall early are moved up over stale data; pendulums fill every step.
    for (const [dynamics, episodeLength] of [
      [createPendulum(), 60],
      [createCartPole(), 20],
    ] as const) {
      const producer = () =>
        new SimulatorProducer({ index: 0, dynamics, seed: 4, episodeLength, parallel: 3 });
      const fresh = await producer().produce({ generation: 1, count: 7 }, live);
      // A pool whose buffers are full of ones: every byte the episodes show must be rewritten.
      const pool = new BufferPool();
      const first = await producer().producePacked({ generation: 1, count: 7 }, live, pool);
      for (const array of Object.values(first))
        if (ArrayBuffer.isView(array)) new Uint8Array(array.buffer).fill(1);
      const buffers = Object.values(first)
        .filter((array) => ArrayBuffer.isView(array))
        .map((array) => (array as Uint8Array).buffer as ArrayBuffer);
      pool.give(buffers);
      const again = await producer().producePacked({ generation: 1, count: 7 }, live, pool);
      expect(again.observations.buffer).toBe(first.observations.buffer); // the pool's memory was used
      expect(unpackEpisodes(again)).toEqual(fresh);
      if (dynamics.kind === 'cartpole')
        expect(fresh.some((e) => e.length < episodeLength)).toBe(true);
    }
  });

  it('packs episodes that ended early end to end, each still a true trajectory', async () => {
    const cartpole = createCartPole();
    const producer = new SimulatorProducer({
      index: 0,
      dynamics: cartpole,
      seed: 2,
      episodeLength: 100,
      parallel: 4,
    });
    const packed = await producer.producePacked({ generation: 1, count: 8 }, live);
    const lengths = Array.from(packed.lengths);
    expect(new Set(lengths).size).toBeGreaterThan(1);
    const steps = lengths.reduce((a, b) => a + b, 0);
    expect(packed.rewards).toHaveLength(steps);
    expect(packed.observations).toHaveLength((steps + 8) * 4);
    for (const episode of unpackEpisodes(packed)) {
      expect(Array.from(episode.dones).indexOf(1)).toBe(episode.length - 1);
      expect(episode.terminated).toBe(episode.length < 100);
      // Each recorded step is the dynamics applied to the observation before it.
      const obs = episode.observations;
      for (let t = 0; t < episode.length; t++) {
        const state = Float64Array.from(obs.subarray(t * 4, (t + 1) * 4));
        cartpole.step(state, 0, episode.actions.slice(t, t + 1), 0);
        const next = new Float32Array(4);
        cartpole.observe(state, 0, next, 0);
        for (let k = 0; k < 4; k++) expect(next[k]).toBeCloseTo(obs[(t + 1) * 4 + k]!, 4);
      }
    }
  });

  it("each episode reads exactly its own slice of the batch, and nothing once the batch's buffers are gone", async () => {
    const producer = new SimulatorProducer({
      index: 0,
      dynamics: createCartPole(),
      seed: 3,
      episodeLength: 40,
      parallel: 4,
    });
    const packed = await producer.producePacked({ generation: 1, count: 8 }, live);
    const episodes = unpackEpisodes(packed);
    let step = 0;
    for (const [i, e] of episodes.entries()) {
      const rows = (step + i) * 4;
      expect(e.length).toBe(packed.lengths[i]);
      expect(e.terminated).toBe(packed.terminated[i] === 1);
      expect(Array.from(e.observations)).toEqual(
        Array.from(packed.observations.slice(rows, rows + (e.length + 1) * 4)),
      );
      expect(Array.from(e.actions)).toEqual(
        Array.from(packed.actions.slice(step, step + e.length)),
      );
      expect(Array.from(e.rewards)).toEqual(
        Array.from(packed.rewards.slice(step, step + e.length)),
      );
      expect(Array.from(e.dones)).toEqual(Array.from(packed.dones.slice(step, step + e.length)));
      step += e.length;
    }
    // One episode read before the buffers go, one never read: both read empty after.
    const [read, unread] = [episodes[0]!, episodes[5]!];
    expect(read.rewards.length).toBeGreaterThan(0);
    const buffers = [packed.observations, packed.actions, packed.rewards, packed.dones].map(
      (array) => array.buffer,
    );
    structuredClone(buffers, { transfer: buffers });
    for (const e of [read, unread]) {
      expect(e.observations).toHaveLength(0);
      expect(e.actions).toHaveLength(0);
      expect(e.rewards).toHaveLength(0);
      expect(e.dones).toHaveLength(0);
    }
  });

  it('a batch of a few short episodes does not keep buffers sized for long ones', async () => {
    const producer = new SimulatorProducer({
      index: 0,
      dynamics: createCartPole(),
      seed: 1,
      episodeLength: 5000,
      parallel: 4,
    });
    const packed = await producer.producePacked({ generation: 1, count: 4 }, live);
    expect(packed.observations.buffer.byteLength).toBe(packed.observations.byteLength);
  });
});
