/**
 * What the graph builders' tests share: a train step run on onnxruntime
 * (WASM, under Node), its hyperparameters and carried tensors fed as the
 * runner feeds them, every weight's gradient checked against central finite
 * differences of the step's own loss, and a few train steps on a fixed batch;
 * and onnxruntime's WASM backend behind the engine's runtime seam, for tests
 * that run whole flows of model kinds.
 */
import * as ort from 'onnxruntime-web';
import { expect } from 'vitest';
import type { TensorRuntime } from '../runtime/tensor-runtime';
import type { MlpWeights } from './mlp.ts';
import type { TrainStep } from './train-step.ts';

export type Feeds = Record<string, ort.Tensor>;
export type Arrays = Record<string, Float32Array>;
export const tensor = (data: Float32Array, dims: readonly number[]) =>
  new ort.Tensor('float32', data, dims);
export const scalar = (v: number) => tensor(Float32Array.of(v), []);

export async function open(model: Uint8Array): Promise<(feeds: Feeds) => Promise<Arrays>> {
  const session = await ort.InferenceSession.create(model);
  return async (feeds) => {
    const out = await session.run(feeds);
    return Object.fromEntries(Object.entries(out).map(([k, t]) => [k, t.data as Float32Array]));
  };
}

export function get<T>(record: Readonly<Record<string, T>>, key: string): T {
  const v = record[key];
  if (v === undefined) throw new Error(`missing ${key}`);
  return v;
}

/** Each weight as a feed, under its own name or the name `names` gives it. */
export function weightFeeds(
  weights: MlpWeights,
  names: Readonly<Record<string, string>> = {},
): Feeds {
  return Object.fromEntries(
    weights.layout.map((s) => [
      names[s.name] ?? s.name,
      tensor(get(weights.values, s.name), s.dims),
    ]),
  );
}

/** Non-zero biases too, so their gradients are checked off the origin. */
export function perturbBiases(weights: MlpWeights, random: () => number): MlpWeights {
  for (const s of weights.layout)
    if (s.dims.length === 1)
      get(weights.values, s.name).forEach((_, i, a) => (a[i] = random() - 0.5));
  return weights;
}

/** Hyperparameters, and the carried tensors (weights, optimizer state) by input name. */
export function stepFeeds(step: TrainStep, carried: Arrays, lr: number, t: number): Feeds {
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

export function initialCarried(step: TrainStep, weights: MlpWeights): Arrays {
  return Object.fromEntries(
    step.carried.map((c) => {
      const w = get(weights.values, c.weight);
      return [c.input, c.role === 'weight' ? w.slice() : new Float32Array(w.length)];
    }),
  );
}

/**
 * Compares each weight's `gradient` with central differences of `lossAt`,
 * nudging the weight's `values` in place (and putting them back); returns
 * how many values were checked.
 */
async function checkAgainstCentralDifferences(
  layout: MlpWeights['layout'],
  gradient: (weight: string) => Float32Array,
  values: (weight: string) => Float32Array,
  lossAt: () => Promise<number>,
): Promise<number> {
  const eps = 1e-3;
  let checked = 0;
  for (const slot of layout) {
    const grad = gradient(slot.name);
    const at = values(slot.name);
    expect(grad.length, slot.name).toBe(at.length);
    for (let i = 0; i < at.length; i++) {
      const original = at[i]!;
      const plus = Math.fround(original + eps);
      const minus = Math.fround(original - eps);
      at[i] = plus;
      const lossPlus = await lossAt();
      at[i] = minus;
      const lossMinus = await lossAt();
      at[i] = original;
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

/** Compares every gradient the step emits with central differences of the step's own loss. */
export async function checkGradients(
  step: TrainStep,
  weights: MlpWeights,
  data: Feeds,
): Promise<number> {
  const run = await open(step.model);
  const carried = initialCarried(step, weights);
  const lossAt = async () =>
    get(await run({ ...data, ...stepFeeds(step, carried, 0, 1) }), step.outputs.loss)[0]!;
  const analytic = await run({ ...data, ...stepFeeds(step, carried, 0, 1) });
  return checkAgainstCentralDifferences(
    weights.layout,
    (weight) => get(analytic, get(step.outputs.gradients, weight)),
    (weight) => get(carried, get(step.inputs.weights, weight)),
    lossAt,
  );
}

/**
 * Checks the step's loss against the separate loss graph's, and every
 * gradient an sgd step emits (fed as `x`, `y`, `lr` and the weights by name)
 * against central differences of that loss graph; returns how many values
 * were checked.
 */
export async function checkGradientsOnLossGraph(
  step: TrainStep,
  lossGraph: { readonly model: Uint8Array; readonly outputs: { readonly loss: string } },
  weights: MlpWeights,
  data: Feeds,
): Promise<number> {
  const trainRun = await open(step.model);
  const lossRun = await open(lossGraph.model);
  const lossAt = async (): Promise<number> =>
    get(await lossRun({ ...data, ...weightFeeds(weights) }), lossGraph.outputs.loss)[0]!;

  const trained = await trainRun({ ...data, lr: scalar(0), ...weightFeeds(weights) });
  // The train step reports the same loss as the evaluation graph.
  expect(get(trained, step.outputs.loss)[0]).toBeCloseTo(await lossAt(), 6);
  return checkAgainstCentralDifferences(
    weights.layout,
    (weight) => get(trained, get(step.outputs.gradients, weight)),
    (weight) => get(weights.values, weight),
    lossAt,
  );
}

/** `steps` train steps on one fixed batch; returns the loss of each. */
export async function train(
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

export const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/**
 * The mean cross-entropy that the inference `model`'s two-class
 * probabilities score on `data` (one-hot `y`): what the block's train step
 * and loss graph must score for the same weights.
 */
export async function inferredCrossEntropy(
  model: Uint8Array,
  data: { readonly x: ort.Tensor; readonly y: ort.Tensor },
): Promise<number> {
  const inference = await open(model);
  const probabilities = get(await inference({ x: data.x }), 'probabilities');
  const labels = data.y.data;
  return -mean(
    Array.from({ length: labels.length / 2 }, (_, n) =>
      Math.log(labels[2 * n]! ? probabilities[2 * n]! : probabilities[2 * n + 1]!),
    ),
  );
}

/**
 * Expects the first step of `step` (lr 0) to score the loss that the
 * inference `model`'s probabilities give on `data`, for the same weights;
 * returns that cross-entropy.
 */
export async function expectStepScoresAsInference(
  step: TrainStep,
  model: Uint8Array,
  weights: MlpWeights,
  data: { readonly x: ort.Tensor; readonly y: ort.Tensor },
): Promise<number> {
  const crossEntropy = await inferredCrossEntropy(model, data);
  const [first] = await train(step, weights, data, 0, 1);
  expect(first).toBeCloseTo(crossEntropy, 5);
  return crossEntropy;
}

/** 8×8 images of a horizontal or a vertical bar at a random place: the class is its direction. */
export function bars(count: number, random: () => number): { x: ort.Tensor; y: ort.Tensor } {
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

/** onnxruntime-web's WASM backend behind the engine's seam (host tensors only). */
export const wasmRuntime: TensorRuntime = {
  info: { backend: 'wasm', adapter: null },
  async createSession(model) {
    const session = await ort.InferenceSession.create(model);
    return {
      backend: 'wasm',
      inputNames: session.inputNames,
      outputNames: session.outputNames,
      async run(feeds) {
        const input: Record<string, ort.Tensor> = {};
        for (const [name, feed] of Object.entries(feeds)) {
          if ('location' in feed) throw new Error('a host tensor was expected');
          input[name] = new ort.Tensor(feed.type, feed.data, feed.dims);
        }
        const out = await session.run(input);
        return Object.fromEntries(
          Object.entries(out).map(([name, t]) => [
            name,
            { type: 'float32', data: t.data as Float32Array, dims: [...t.dims] },
          ]),
        );
      },
      release: () => session.release(),
    };
  },
};
