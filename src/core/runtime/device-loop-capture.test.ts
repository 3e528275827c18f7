/**
 * A device loop with graph capture on a stand-in device: a "train step"
 * that adds its rows' sum to a carried vector and reports the vector's
 * first value, run uncaptured by `run` and captured by a `CapturedStep`
 * that updates its fixed buffers in place. The captured loop must give the
 * uncaptured loop's values, and every refusal must leave a loop that still
 * trains, from where the last good step left the carried tensors.
 */
import { describe, expect, it } from 'vitest';
import { openDeviceLoop, type CapturedStep, type DeviceOps } from './device-loop';
import { hostDeviceTensor, type DeviceTensor, type Tensor } from './tensor-runtime';
import type { TransferLedger } from './transfers';

const vector = (...v: number[]): Tensor => ({
  type: 'float32',
  data: Float32Array.from(v),
  dims: [v.length],
});
const rows = (...v: number[]): Tensor => ({
  type: 'int32',
  data: Int32Array.from(v),
  dims: [v.length],
});

/** next.w = w + scale · Σ rows; loss = w[0] (before the update). */
function trainStep(
  w: Float32Array,
  scale: number,
  r: Int32Array,
): { next: Float32Array; loss: number } {
  const sum = r.reduce((a, b) => a + b, 0);
  return { next: w.map((x) => x + scale * sum), loss: w[0]! };
}

interface Faults {
  readonly open?: string;
  /** The captured step's call (0-based) that throws. */
  readonly stepAt?: number;
}

function standIn(faults: Faults | null) {
  const seen = { captured: 0, uncaptured: 0, released: 0 };
  const data = async (t: DeviceTensor) => (await t.read()).data;
  const ops: DeviceOps = {
    async run(feeds, _keep, ledger) {
      seen.uncaptured++;
      const r = feeds.rows as Tensor;
      ledger.upload(r.data.byteLength);
      const { next, loss } = trainStep(
        (await data(feeds.w as DeviceTensor)) as Float32Array,
        ((await data(feeds.scale as DeviceTensor)) as Float32Array)[0]!,
        r.data as Int32Array,
      );
      return { 'next.w': hostDeviceTensor(vector(...next)), loss: hostDeviceTensor(vector(loss)) };
    },
    upload: (tensors) =>
      Promise.resolve(
        Object.fromEntries(Object.entries(tensors).map(([k, t]) => [k, hostDeviceTensor(t)])),
      ),
    readFirst: async (tensors) =>
      Float32Array.from(await Promise.all(tensors.map(async (t) => (await t.read()).data[0]!))),
    fits: () => true,
    release: () => Promise.resolve(),
  };
  if (faults === null) return { ops, seen };
  const capture: DeviceOps['capture'] = {
    async open(given, _first, plan) {
      if (faults.open !== undefined) throw new Error(faults.open);
      expect(plan.read).toEqual(['loss']);
      // The capture's own copies of the loop's tensors: it updates them in place.
      const inputs: Record<string, DeviceTensor> = {};
      for (const [k, t] of Object.entries(given)) {
        const held = await t.read();
        inputs[k] = hostDeviceTensor({ ...held, data: held.data.slice() });
      }
      const w = (await inputs.w!.read()).data as Float32Array;
      const scale = ((await inputs.scale!.read()).data as Float32Array)[0]!;
      let calls = 0;
      let slots: number[] = [];
      const step: CapturedStep = {
        step(feeds, ledger: TransferLedger) {
          if (calls++ === faults.stepAt) return Promise.reject(new Error('the replay broke'));
          seen.captured++;
          ledger.upload(feeds.rows!.data.byteLength);
          const { next, loss } = trainStep(w, scale, feeds.rows!.data as Int32Array);
          // The carried output copied into the carried input's buffer, on the "GPU".
          w.set(next);
          slots.push(loss);
          return Promise.resolve();
        },
        takeReads(ledger) {
          ledger.download(slots.length * 4);
          const out = [Float32Array.from(slots)];
          slots = [];
          return Promise.resolve(out);
        },
        release() {
          seen.released++;
          return Promise.resolve();
        },
      };
      return { step, inputs };
    },
  };
  return { ops: { ...ops, capture }, seen };
}

const plan = {
  carried: [{ input: 'w', output: 'next.w' }],
  initial: { w: vector(1, 2) },
  constants: { scale: vector(0.5) },
  read: ['loss'],
};
const steps = (counts: readonly number[]) =>
  counts.map((n, i) => ({ rows: rows(...Array.from({ length: n }, (_, k) => i + k)) }));
const signal = new AbortController().signal;

async function train(faults: Faults | null, counts: readonly number[], perCall = 3) {
  const { ops, seen } = standIn(faults);
  const loop = await openDeviceLoop(ops, plan);
  const losses: number[] = [];
  const all = steps(counts);
  for (let i = 0; i < all.length; i += perCall) {
    const result = await loop.run(all.slice(i, i + perCall), signal);
    losses.push(...result.values.loss!);
  }
  const w = [...(await loop.carried(['w'])).w!.data];
  const report = loop.graphCapture?.() ?? null;
  await loop.close();
  return { losses, w, report, seen };
}

describe('a device loop with graph capture', () => {
  const counts = [2, 2, 2, 2, 2, 2, 2];

  it('replays the captured step and gives the uncaptured loop’s losses and weights', async () => {
    const plain = await train(null, counts);
    const captured = await train({}, counts);
    expect(plain.report).toBeNull();
    expect(captured.losses).toEqual(plain.losses);
    expect(captured.w).toEqual(plain.w);
    expect(captured.report).toEqual({ captured: 7, uncaptured: 0 });
    expect(captured.seen).toMatchObject({ captured: 7, uncaptured: 0, released: 1 });
  });

  it('runs uncaptured, and says why, when the library will not capture the step', async () => {
    const plain = await train(null, counts);
    const refused = await train(
      { open: 'This session cannot use the graph capture feature' },
      counts,
    );
    expect(refused.losses).toEqual(plain.losses);
    expect(refused.w).toEqual(plain.w);
    expect(refused.report).toEqual({
      captured: 0,
      uncaptured: 7,
      refused:
        'onnxruntime would not capture the train step: This session cannot use the graph capture feature',
    });
  });

  it('goes on uncaptured from the last good step when a replay fails part-way', async () => {
    const plain = await train(null, counts);
    const broken = await train({ stepAt: 4 }, counts);
    expect(broken.losses).toEqual(plain.losses);
    expect(broken.w).toEqual(plain.w);
    expect(broken.report).toEqual({
      captured: 4,
      uncaptured: 3,
      refused: 'a captured step failed: the replay broke',
    });
  });

  it('does not try to capture from a first step with an empty feed', async () => {
    const plain = await train(null, [0, 2, 2]);
    const refused = await train({}, [0, 2, 2]);
    expect(refused.losses).toEqual(plain.losses);
    expect(refused.seen.captured).toBe(0);
    expect(refused.report).toEqual({
      captured: 0,
      uncaptured: 3,
      refused: "the step's input rows has no elements (no buffer to fix)",
    });
  });

  it('stops capturing at a step whose shapes changed, keeping the steps before it', async () => {
    const ragged = [2, 2, 2, 2, 1, 2];
    const plain = await train(null, ragged);
    const captured = await train({}, ragged);
    expect(captured.losses).toEqual(plain.losses);
    expect(captured.w).toEqual(plain.w);
    expect(captured.report).toEqual({
      captured: 4,
      uncaptured: 2,
      refused:
        "the step's input rows changed from int32 [2] to int32 [1]; a captured step needs fixed shapes",
    });
  });
});
