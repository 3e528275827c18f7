import { describe, expect, it } from 'vitest';
import { modelSteps, openSessionLoop } from './session-loop';
import type { DeviceTensor, Feed, Fetched, Tensor } from './tensor-runtime';

const scalar = (v: number): Tensor => ({ type: 'float32', data: Float32Array.of(v), dims: [] });

/** A device tensor over `value` that records its disposal. */
function held(value: number, disposed: number[]): DeviceTensor {
  return {
    location: 'device',
    storage: 'cpu',
    type: 'float32',
    dims: [],
    read: () => Promise.resolve(scalar(value)),
    dispose: () => void disposed.push(value),
  };
}

/** A "step": w' = w + x·lr, loss = w'; its new weight kept as a device tensor. */
function counter(disposed: number[], runs: Record<string, Feed>[]) {
  return {
    async run(feeds: Readonly<Record<string, Feed>>): Promise<Record<string, Fetched>> {
      runs.push({ ...feeds });
      const value = async (name: string) => {
        const f = feeds[name]!;
        return 'read' in f ? (await f.read()).data[0]! : (f as Tensor).data[0]!;
      };
      const next = (await value('w')) + (await value('x')) * (await value('lr'));
      return { 'next.w': held(next, disposed), loss: scalar(next) };
    },
  };
}

describe('a session loop', () => {
  it('runs a call’s steps back to back, each fed the last one’s carried output', async () => {
    const disposed: number[] = [];
    const runs: Record<string, Feed>[] = [];
    const loop = openSessionLoop(modelSteps(counter(disposed, runs)), {
      carried: [{ input: 'w', output: 'next.w' }],
      initial: { w: scalar(1) },
      constants: { lr: scalar(2) },
      read: ['loss'],
    });
    const signal = new AbortController().signal;
    const result = await loop.run([{ x: scalar(1) }, null, { x: scalar(3) }], signal);
    expect(result.ran).toBe(3);
    expect([...result.values.loss!]).toEqual([3, Number.NaN, 9]);
    expect(runs).toHaveLength(2);
    // The first carried output was let go once the next step replaced it.
    expect(disposed).toEqual([3]);
    const again = await loop.run([{ x: scalar(0.5) }], signal);
    expect([...again.values.loss!]).toEqual([10]);
    expect((await loop.carried(['w'])).w!.data[0]).toBe(10);
    await loop.close();
    expect(disposed).toEqual([3, 9, 10]);
    await expect(loop.run([{ x: scalar(1) }], signal)).rejects.toThrow('after close');
  });

  it('runs a call made while another runs after it, on its carried tensors', async () => {
    const runs: Record<string, Feed>[] = [];
    const loop = openSessionLoop(modelSteps(counter([], runs)), {
      carried: [{ input: 'w', output: 'next.w' }],
      initial: { w: scalar(1) },
      constants: { lr: scalar(1) },
      read: ['loss'],
    });
    const signal = new AbortController().signal;
    // Both made at once, as a loop that keeps two messages on their way makes them.
    const [first, second] = await Promise.all([
      loop.run([{ x: scalar(1) }, { x: scalar(2) }], signal),
      loop.run([{ x: scalar(10) }], signal),
    ]);
    expect([...first.values.loss!]).toEqual([2, 4]);
    expect([...second.values.loss!]).toEqual([14]);
    expect(runs.map((r) => (r.x as Tensor).data[0])).toEqual([1, 2, 10]);
    await loop.close();
  });

  it('stops between two steps once cancelled, saying how many ran', async () => {
    const abort = new AbortController();
    const runs: Record<string, Feed>[] = [];
    const session = counter([], runs);
    const loop = openSessionLoop(
      modelSteps({
        run: async (feeds) => {
          const out = await session.run(feeds);
          if (runs.length === 2) abort.abort();
          return out;
        },
      }),
      {
        carried: [{ input: 'w', output: 'next.w' }],
        initial: { w: scalar(0) },
        constants: { lr: scalar(1) },
        read: ['loss'],
      },
    );
    const steps = Array.from({ length: 5 }, () => ({ x: scalar(1) }));
    const result = await loop.run(steps, abort.signal);
    expect(result.ran).toBe(2);
    expect([...result.values.loss!].slice(0, 2)).toEqual([1, 2]);
    expect(runs).toHaveLength(2);
  });
});
