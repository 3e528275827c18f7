import { describe, expect, it } from 'vitest';
import {
  buildMlpInference,
  buildMlpLoss,
  buildMlpTrainStep,
  initMlpWeights,
  mlpWeightLayout,
  type MlpSpec,
  type MlpWeights,
} from './mlp.ts';
import {
  checkGradientsOnLossGraph,
  get,
  open,
  perturbBiases,
  scalar,
  tensor,
  weightFeeds,
  type Feeds,
} from './testing.ts';

/** A small seeded uniform [0, 1) generator (mulberry32), for reproducible tests. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `n` points in [-1, 1]², labelled by a line, with a margin kept clear. */
function separableData(
  n: number,
  random: () => number,
): { x: Float32Array; y: Float32Array; labels: number[] } {
  const x = new Float32Array(n * 2);
  const y = new Float32Array(n * 2);
  const labels: number[] = [];
  for (let i = 0; i < n;) {
    const a = 2 * random() - 1;
    const b = 2 * random() - 1;
    const side = a - 0.5 * b - 0.2;
    if (Math.abs(side) < 0.1) continue;
    const label = side > 0 ? 1 : 0;
    x.set([a, b], i * 2);
    y[i * 2 + label] = 1;
    labels.push(label);
    i++;
  }
  return { x, y, labels };
}

function randomBatch(
  spec: MlpSpec,
  batch: number,
  random: () => number,
): { x: Float32Array; y: Float32Array } {
  const x = Float32Array.from({ length: batch * spec.inputSize }, () => 2 * random() - 1);
  const y = new Float32Array(batch * spec.outputSize);
  for (let r = 0; r < batch; r++)
    y[r * spec.outputSize + Math.floor(random() * spec.outputSize)] = 1;
  return { x, y };
}

/** Fresh weights with non-zero biases too, so bias gradients are exercised off the origin. */
function randomWeights(spec: MlpSpec, random: () => number): MlpWeights {
  return perturbBiases(initMlpWeights(spec, random), random);
}

describe('initMlpWeights', () => {
  it('lays out W0, b0, W1, b1 … with [fanIn, fanOut] and [fanOut], for any depth', () => {
    expect(
      mlpWeightLayout({ inputSize: 4, hidden: [], outputSize: 3, activation: 'relu' }),
    ).toEqual([
      { name: 'W0', dims: [4, 3] },
      { name: 'b0', dims: [3] },
    ]);
    const deep = initMlpWeights(
      { inputSize: 2, hidden: [5, 4, 3], outputSize: 2, activation: 'tanh' },
      mulberry32(1),
    );
    expect(deep.layout.map((s) => `${s.name}:${s.dims.join('x')}`)).toEqual([
      'W0:2x5',
      'b0:5',
      'W1:5x4',
      'b1:4',
      'W2:4x3',
      'b2:3',
      'W3:3x2',
      'b3:2',
    ]);
    expect(deep.values.W1?.length).toBe(20);
  });

  it('draws He-scaled weights for relu layers, Glorot for the output, zero biases, deterministically', () => {
    const spec: MlpSpec = { inputSize: 6, hidden: [50], outputSize: 4, activation: 'relu' };
    const a = initMlpWeights(spec, mulberry32(3));
    const b = initMlpWeights(spec, mulberry32(3));
    expect(a.values).toEqual(b.values);
    const maxAbs = (v: Float32Array | undefined) => Math.max(...Array.from(v ?? [], Math.abs));
    expect(maxAbs(a.values.W0)).toBeLessThanOrEqual(Math.sqrt(6 / 6));
    expect(maxAbs(a.values.W0)).toBeGreaterThan(0.8 * Math.sqrt(6 / 6));
    expect(maxAbs(a.values.W1)).toBeLessThanOrEqual(Math.sqrt(6 / 54));
    expect(maxAbs(a.values.b0)).toBe(0);
    expect(initMlpWeights(spec, mulberry32(4)).values.W0).not.toEqual(a.values.W0);
  });

  it('rejects a spec that is not a network, naming the field', () => {
    expect(() =>
      mlpWeightLayout({ inputSize: 2, hidden: [3, 0], outputSize: 2, activation: 'relu' }),
    ).toThrow(/hidden\[1\]/);
    expect(() =>
      buildMlpTrainStep(
        { inputSize: 2.5, hidden: [], outputSize: 2, activation: 'relu' },
        { optimizer: 'sgd', loss: 'softmax_cross_entropy' },
      ),
    ).toThrow(/inputSize/);
  });
});

describe.each(['relu', 'tanh'] as const)('train-step gradients (%s)', (activation) => {
  it('match central finite differences of the loss graph for every weight', async () => {
    const spec: MlpSpec = { inputSize: 3, hidden: [5, 4], outputSize: 3, activation };
    const random = mulberry32(11);
    const weights = randomWeights(spec, random);
    const { x, y } = randomBatch(spec, 6, random);
    const step = buildMlpTrainStep(spec, {
      optimizer: 'sgd',
      loss: 'softmax_cross_entropy',
      emitGradients: true,
    });
    const data = { x: tensor(x, [6, 3]), y: tensor(y, [6, 3]) };
    const checked = await checkGradientsOnLossGraph(step, buildMlpLoss(spec), weights, data);
    expect(checked).toBe(3 * 5 + 5 + 5 * 4 + 4 + 4 * 3 + 3);
  });
});

describe('optimizer updates', () => {
  const spec: MlpSpec = { inputSize: 2, hidden: [3], outputSize: 2, activation: 'tanh' };
  const close = (actual: number, expected: number) =>
    Math.abs(actual - expected) <= 1e-6 * Math.max(1, Math.abs(expected));

  it('sgd: W ← W − lr·g, for lr fed as a scalar or as [1]', async () => {
    const random = mulberry32(5);
    const weights = randomWeights(spec, random);
    const { x, y } = randomBatch(spec, 4, random);
    const step = buildMlpTrainStep(spec, {
      optimizer: 'sgd',
      loss: 'softmax_cross_entropy',
      emitGradients: true,
    });
    const run = await open(step.model);
    for (const lr of [scalar(0.37), tensor(Float32Array.of(0.37), [1])]) {
      const out = await run({
        x: tensor(x, [4, 2]),
        y: tensor(y, [4, 2]),
        lr,
        ...weightFeeds(weights),
      });
      for (const slot of weights.layout) {
        const w = get(weights.values, slot.name);
        const g = get(out, get(step.outputs.gradients, slot.name));
        const next = get(out, get(step.outputs.weights, slot.name));
        expect(g.some((v) => v !== 0)).toBe(true);
        next.forEach((v, i) =>
          expect(close(v, (w[i] as number) - 0.37 * (g[i] as number)), `${slot.name}[${i}]`).toBe(
            true,
          ),
        );
      }
    }
  });

  it('momentum: v ← μ·v + g, W ← W − lr·v, with the same gradients as sgd', async () => {
    const random = mulberry32(6);
    const weights = randomWeights(spec, random);
    const velocities = initMlpWeights(spec, random); // any non-zero values will do
    const { x, y } = randomBatch(spec, 4, random);
    const data = {
      x: tensor(x, [4, 2]),
      y: tensor(y, [4, 2]),
      lr: scalar(0.2),
      ...weightFeeds(weights),
    };
    const step = buildMlpTrainStep(spec, {
      optimizer: 'momentum',
      loss: 'softmax_cross_entropy',
      emitGradients: true,
    });
    const sgd = buildMlpTrainStep(spec, {
      optimizer: 'sgd',
      loss: 'softmax_cross_entropy',
      emitGradients: true,
    });
    const out = await (
      await open(step.model)
    )({ ...data, momentum: scalar(0.9), ...weightFeeds(velocities, step.inputs.velocities) });
    const sgdOut = await (await open(sgd.model))(data);
    for (const slot of weights.layout) {
      const w = get(weights.values, slot.name);
      const v = get(velocities.values, slot.name);
      const g = get(out, get(step.outputs.gradients, slot.name));
      expect(g).toEqual(get(sgdOut, get(sgd.outputs.gradients, slot.name)));
      const nextV = get(out, get(step.outputs.velocities, slot.name));
      const nextW = get(out, get(step.outputs.weights, slot.name));
      nextV.forEach((nv, i) =>
        expect(close(nv, 0.9 * (v[i] as number) + (g[i] as number)), `v.${slot.name}[${i}]`).toBe(
          true,
        ),
      );
      nextW.forEach((nw, i) =>
        expect(close(nw, (w[i] as number) - 0.2 * (nextV[i] as number)), `${slot.name}[${i}]`).toBe(
          true,
        ),
      );
    }
  });
});

interface TrainResult {
  losses: number[];
  weights: MlpWeights;
}

/** Mini-batch training over `data` in order; the last batch of each epoch is smaller (dynamic batch). */
async function train(
  spec: MlpSpec,
  optimizer: 'sgd' | 'momentum',
  seed: number,
  data: { x: Float32Array; y: Float32Array },
  steps: number,
): Promise<TrainResult> {
  const step = buildMlpTrainStep(spec, { optimizer, loss: 'softmax_cross_entropy' });
  const run = await open(step.model);
  let weights = initMlpWeights(spec, mulberry32(seed));
  let velocities: MlpWeights = {
    layout: weights.layout,
    values: Object.fromEntries(
      weights.layout.map((s) => [s.name, new Float32Array(get(weights.values, s.name).length)]),
    ),
  };
  const n = data.x.length / spec.inputSize;
  const batchSize = 48;
  const losses: number[] = [];
  for (let s = 0, start = 0; s < steps; s++) {
    const rows = Math.min(batchSize, n - start);
    const feeds: Feeds = {
      x: tensor(data.x.slice(start * spec.inputSize, (start + rows) * spec.inputSize), [
        rows,
        spec.inputSize,
      ]),
      y: tensor(data.y.slice(start * spec.outputSize, (start + rows) * spec.outputSize), [
        rows,
        spec.outputSize,
      ]),
      lr: scalar(optimizer === 'sgd' ? 0.5 : 0.1),
      ...weightFeeds(weights),
    };
    if (optimizer === 'momentum')
      Object.assign(
        feeds,
        { momentum: scalar(0.9) },
        weightFeeds(velocities, step.inputs.velocities),
      );
    const out = await run(feeds);
    losses.push(get(out, step.outputs.loss)[0] as number);
    const pick = (names: Readonly<Record<string, string>>) =>
      Object.fromEntries(weights.layout.map((sl) => [sl.name, get(out, get(names, sl.name))]));
    weights = { layout: weights.layout, values: pick(step.outputs.weights) };
    if (optimizer === 'momentum')
      velocities = { layout: weights.layout, values: pick(step.outputs.velocities) };
    start = start + rows >= n ? 0 : start + rows;
  }
  return { losses, weights };
}

describe('training a small MLP on a separable 2-D problem', () => {
  const data = separableData(200, mulberry32(2024));

  it.each([
    { activation: 'relu', optimizer: 'momentum' },
    { activation: 'tanh', optimizer: 'sgd' },
  ] as const)(
    '$activation + $optimizer: the loss falls and accuracy is high',
    async ({ activation, optimizer }) => {
      const spec: MlpSpec = { inputSize: 2, hidden: [8], outputSize: 2, activation };
      const lossGraph = buildMlpLoss(spec);
      const evaluate = await open(lossGraph.model);
      const all = { x: tensor(data.x, [200, 2]), y: tensor(data.y, [200, 2]) };
      const initial = get(
        await evaluate({ ...all, ...weightFeeds(initMlpWeights(spec, mulberry32(1))) }),
        'loss',
      )[0] as number;

      const { losses, weights } = await train(spec, optimizer, 1, data, 100);
      expect(losses).toHaveLength(100);
      expect(losses.every(Number.isFinite)).toBe(true);
      const final = get(await evaluate({ ...all, ...weightFeeds(weights) }), 'loss')[0] as number;
      expect(final).toBeLessThan(0.25 * initial);

      const baked = buildMlpInference(spec, weights);
      expect(baked.inputs.weights).toEqual({});
      const probabilities = get(
        await (
          await open(baked.model)
        )({ x: all.x }),
        baked.outputs.probabilities,
      );
      const correct = data.labels.filter(
        (label, i) => (probabilities[i * 2 + label] as number) > 0.5,
      ).length;
      expect(correct / data.labels.length).toBeGreaterThanOrEqual(0.95);

      // The downloadable artifact computes what the weights-as-inputs model does.
      const fed = buildMlpInference(spec);
      const fedOut = await (
        await open(fed.model)
      )({ x: all.x, ...weightFeeds(weights, fed.inputs.weights) });
      const fedProbabilities = get(fedOut, fed.outputs.probabilities);
      probabilities.forEach((p, i) =>
        expect(Math.abs(p - (fedProbabilities[i] as number))).toBeLessThan(1e-6),
      );
      for (let r = 0; r < 200; r++)
        expect((probabilities[2 * r] as number) + (probabilities[2 * r + 1] as number)).toBeCloseTo(
          1,
          6,
        );
    },
  );

  it('is deterministic: the same seed gives bit-identical losses, another seed does not', async () => {
    const spec: MlpSpec = { inputSize: 2, hidden: [6, 4], outputSize: 2, activation: 'relu' };
    const a = await train(spec, 'momentum', 9, data, 30);
    const b = await train(spec, 'momentum', 9, data, 30);
    const c = await train(spec, 'momentum', 10, data, 30);
    expect(b.losses).toHaveLength(a.losses.length);
    a.losses.forEach((v, i) => expect(Object.is(v, b.losses[i]), `step ${i}`).toBe(true));
    expect(c.losses).not.toEqual(a.losses);
  });
});
