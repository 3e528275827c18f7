/**
 * The CNN (conv → ReLU → max-pool blocks, a linear head) on onnxruntime
 * (WASM, under Node): every weight's gradient against central finite
 * differences of the loss — odd sides (the pool drops a row) and even
 * kernels included — the inference graph scoring what the train step
 * optimises, the memory estimate knowing every op, and a few hundred steps
 * learning a fixed image problem.
 */
import * as ort from 'onnxruntime-web';
import { describe, expect, it } from 'vitest';
import { createRandom } from '../random.ts';
import { buildLossGraph } from './block-graphs.ts';
import { buildCnnInference, cnnRowBlock, initCnnWeights, type CnnSpec } from './cnn.ts';
import { buildCnnTrainStep } from './cnn-train.ts';
import { estimateMemory, inferShapes } from './memory.ts';
import type { MlpWeights } from './mlp.ts';
import type { TrainStep } from './train-step.ts';

type Feeds = Record<string, ort.Tensor>;
type Arrays = Record<string, Float32Array>;
const tensor = (data: Float32Array, dims: readonly number[]) =>
  new ort.Tensor('float32', data, dims);
const scalar = (v: number) => tensor(Float32Array.of(v), []);

async function open(model: Uint8Array): Promise<(feeds: Feeds) => Promise<Arrays>> {
  const session = await ort.InferenceSession.create(model);
  return async (feeds) => {
    const out = await session.run(feeds);
    return Object.fromEntries(Object.entries(out).map(([k, t]) => [k, t.data as Float32Array]));
  };
}

function get<T>(record: Readonly<Record<string, T>>, key: string): T {
  const v = record[key];
  if (v === undefined) throw new Error(`missing ${key}`);
  return v;
}

/** Non-zero biases too, so their gradients are checked off the origin. */
function perturbBiases(weights: MlpWeights, random: () => number): MlpWeights {
  for (const s of weights.layout)
    if (s.dims.length === 1)
      get(weights.values, s.name).forEach((_, i, a) => (a[i] = random() - 0.5));
  return weights;
}

/** Hyperparameters, and the carried tensors (weights, optimizer state) by input name. */
function stepFeeds(step: TrainStep, carried: Arrays, lr: number, t: number): Feeds {
  const feeds: Feeds = { [step.inputs.lr]: scalar(lr) };
  if (step.inputs.momentum !== null) feeds[step.inputs.momentum] = scalar(0.9);
  if (step.inputs.adam !== null) {
    feeds[step.inputs.adam.beta1] = scalar(0.9);
    feeds[step.inputs.adam.beta2] = scalar(0.999);
    feeds[step.inputs.adam.epsilon] = scalar(1e-8);
    feeds[step.inputs.adam.step] = scalar(t);
  }
  for (const c of step.carried) feeds[c.input] = tensor(get(carried, c.input), c.dims);
  return feeds;
}

function initialCarried(step: TrainStep, weights: MlpWeights): Arrays {
  return Object.fromEntries(
    step.carried.map((c) => {
      const w = get(weights.values, c.weight);
      return [c.input, c.role === 'weight' ? w.slice() : new Float32Array(w.length)];
    }),
  );
}

/** Compares every gradient the step emits with central differences of the step's own loss. */
async function checkGradients(step: TrainStep, weights: MlpWeights, data: Feeds): Promise<number> {
  const run = await open(step.model);
  const carried = initialCarried(step, weights);
  const lossAt = async () =>
    get(await run({ ...data, ...stepFeeds(step, carried, 0, 1) }), step.outputs.loss)[0]!;
  const analytic = await run({ ...data, ...stepFeeds(step, carried, 0, 1) });
  const eps = 1e-3;
  let checked = 0;
  for (const slot of weights.layout) {
    const grad = get(analytic, get(step.outputs.gradients, slot.name));
    const values = get(carried, get(step.inputs.weights, slot.name));
    expect(grad.length, slot.name).toBe(values.length);
    for (let i = 0; i < values.length; i++) {
      const original = values[i]!;
      const plus = Math.fround(original + eps);
      const minus = Math.fround(original - eps);
      values[i] = plus;
      const lossPlus = await lossAt();
      values[i] = minus;
      const lossMinus = await lossAt();
      values[i] = original;
      const numeric = (lossPlus - lossMinus) / (plus - minus);
      expect(
        Math.abs(grad[i]! - numeric),
        `${slot.name}[${i}]: ${grad[i]} vs ${numeric}`,
      ).toBeLessThan(1e-3 + 1e-2 * Math.abs(numeric));
      checked++;
    }
  }
  return checked;
}

/** `steps` train steps on one fixed batch; returns the loss of each. */
async function train(
  step: TrainStep,
  weights: MlpWeights,
  data: Feeds,
  lr: number,
  steps: number,
): Promise<number[]> {
  const run = await open(step.model);
  let carried = initialCarried(step, weights);
  const losses: number[] = [];
  for (let t = 1; t <= steps; t++) {
    const out = await run({ ...data, ...stepFeeds(step, carried, lr, t) });
    losses.push(get(out, step.outputs.loss)[0]!);
    carried = Object.fromEntries(step.carried.map((c) => [c.input, get(out, c.output)]));
  }
  return losses;
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

describe.each([
  { loss: 'softmax_cross_entropy', kernel: 3, height: 7, width: 6 },
  { loss: 'huber', kernel: 2, height: 6, width: 9 },
] as const)(
  'CNN gradients ($loss, kernel $kernel, $height×$width)',
  ({ loss, kernel, height, width }) => {
    it('match central finite differences for every weight', async () => {
      const spec: CnnSpec = {
        channels: 2,
        height,
        width,
        filters: 3,
        kernel,
        blocks: 2,
        outputSize: 3,
      };
      const random = createRandom(8);
      const weights = perturbBiases(initCnnWeights(spec, random), random);
      const x = Float32Array.from({ length: 3 * 2 * height * width }, () => 2 * random() - 1);
      const y = Float32Array.from({ length: 3 * 3 }, (_, i) =>
        loss === 'huber' ? 3 * (random() - 0.5) : i % 3 === (i % 4) % 3 ? 1 : 0,
      );
      const step = buildCnnTrainStep(spec, { optimizer: 'sgd', loss, emitGradients: true });
      const data = { x: tensor(x, [3, 2, height, width]), y: tensor(y, [3, 3]) };
      const features = 3 * Math.floor(height / 4) * Math.floor(width / 4);
      const k2 = kernel * kernel;
      expect(await checkGradients(step, weights, data)).toBe(
        3 * 2 * k2 + 3 + 3 * 3 * k2 + 3 + features * 3 + 3,
      );
    });
  },
);

describe('CNN', () => {
  const spec: CnnSpec = {
    channels: 1,
    height: 8,
    width: 8,
    filters: 4,
    kernel: 3,
    blocks: 2,
    outputSize: 2,
  };

  /** 8×8 images of a horizontal or a vertical bar at a random place: the class is its direction. */
  function bars(count: number, random: () => number) {
    const x = new Float32Array(count * 64);
    const y = new Float32Array(count * 2);
    for (let n = 0; n < count; n++) {
      const vertical = n % 2 === 1;
      const at = Math.floor(random() * 8);
      for (let i = 0; i < 8; i++) x[n * 64 + (vertical ? i * 8 + at : at * 8 + i)] = 1;
      y[n * 2 + (vertical ? 1 : 0)] = 1;
    }
    return { x: tensor(x, [count, 1, 8, 8]), y: tensor(y, [count, 2]) };
  }

  it('infers the logits its train step and its loss graph score (same cross-entropy)', async () => {
    const random = createRandom(2);
    const weights = perturbBiases(initCnnWeights(spec, random), random);
    const data = bars(6, random);
    const inference = await open(buildCnnInference(spec, weights).model);
    const probabilities = get(await inference({ x: data.x }), 'probabilities');
    const labels = data.y.data;
    const crossEntropy = -mean(
      Array.from({ length: 6 }, (_, n) =>
        Math.log(labels[2 * n]! ? probabilities[2 * n]! : probabilities[2 * n + 1]!),
      ),
    );
    const step = buildCnnTrainStep(spec, { optimizer: 'sgd', loss: 'softmax_cross_entropy' });
    const [first] = await train(step, weights, data, 0, 1);
    expect(first).toBeCloseTo(crossEntropy, 5);
    const lossGraph = buildLossGraph(cnnRowBlock(spec), 'softmax_cross_entropy');
    const feeds: Feeds = { x: data.x, y: data.y };
    for (const slot of weights.layout)
      feeds[slot.name] = tensor(get(weights.values, slot.name), slot.dims);
    const scored = get(await (await open(lossGraph.model))(feeds), lossGraph.outputs.loss)[0];
    expect(scored).toBeCloseTo(crossEntropy, 5);
  });

  it('has a memory estimate whose shapes are the ones onnxruntime gives', () => {
    const step = buildCnnTrainStep(
      { ...spec, height: 7, blocks: 2 },
      { optimizer: 'adam', loss: 'softmax_cross_entropy' },
    );
    const shapes = inferShapes(step.graph, { dims: { batch: 5 } });
    for (const c of step.carried) expect(shapes.get(c.output)?.dims, c.output).toEqual(c.dims);
    const memory = estimateMemory(step.graph, {
      dims: { batch: 5 },
      resident: step.carried.map((c) => c.input),
    });
    expect(memory.peakBytes).toBeGreaterThan(5 * 4 * 7 * 8 * 4);
  });

  it('learns to tell horizontal from vertical bars', async () => {
    const random = createRandom(4);
    const weights = initCnnWeights(spec, random);
    const data = bars(32, random);
    const step = buildCnnTrainStep(spec, { optimizer: 'adam', loss: 'softmax_cross_entropy' });
    const losses = await train(step, weights, data, 0.05, 200);
    expect(mean(losses.slice(-10))).toBeLessThan(0.25 * mean(losses.slice(0, 10)));
  });

  it('refuses a spec its pools or kernel do not fit, naming the field', () => {
    expect(() => buildCnnInference({ ...spec, blocks: 4 })).toThrow(
      'CnnSpec.blocks must leave at least one pixel after its 2×2 pools: a 8×8 image takes at most 3, got 4',
    );
    expect(() => buildCnnInference({ ...spec, kernel: 5 })).toThrow(
      'CnnSpec.kernel must be at most the smallest side a conv sees (4), got 5',
    );
  });
});
