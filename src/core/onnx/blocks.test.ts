/**
 * The conv (1-D and 2-D) and attention blocks on onnxruntime (WASM, under Node): every
 * weight's gradient against central finite differences of the loss, the
 * inference graph computing what the train step optimises, and a few
 * hundred train steps learning a fixed synthetic problem.
 */
import { describe, expect, it } from 'vitest';
import { createRandom } from '../random.ts';
import { buildAttentionInference, initAttentionWeights, type AttentionSpec } from './attention.ts';
import { buildAttentionTrainStep } from './attention-train.ts';
import { buildConv1dInference, initConv1dWeights, type Conv1dSpec } from './conv1d.ts';
import { buildConv1dTrainStep } from './conv1d-train.ts';
import { buildConv2dInference, initConv2dWeights, type Conv2dSpec } from './conv2d.ts';
import { buildConv2dTrainStep } from './conv2d-train.ts';
import type { MlpOptimizer } from './mlp.ts';
import {
  tensor,
  open,
  get,
  perturbBiases,
  checkGradients,
  train,
  mean,
  bars,
  expectStepScoresAsInference,
} from './testing.ts';

// --- the conv block ---------------------------------------------------------

/** Sine waves (class 0) and square waves (class 1), random frequency and phase, one channel. */
function waves(count: number, length: number, random: () => number) {
  const x = new Float32Array(count * length);
  const y = new Float32Array(count * 2);
  for (let n = 0; n < count; n++) {
    const square = n % 2 === 1;
    const frequency = 1 + random() * 2;
    const phase = random() * 2 * Math.PI;
    for (let t = 0; t < length; t++) {
      const s = Math.sin((2 * Math.PI * frequency * t) / length + phase);
      x[n * length + t] = square ? Math.sign(s) : s;
    }
    y[n * 2 + (square ? 1 : 0)] = 1;
  }
  return { x: tensor(x, [count, 1, length]), y: tensor(y, [count, 2]) };
}

describe.each([
  { loss: 'softmax_cross_entropy', kernel: 3 },
  { loss: 'mse', kernel: 4 },
] as const)('conv block gradients ($loss, kernel $kernel)', ({ loss, kernel }) => {
  it('match central finite differences for every weight', async () => {
    const spec: Conv1dSpec = { channels: 2, length: 7, filters: 3, kernel, outputSize: 3 };
    const random = createRandom(5);
    const weights = perturbBiases(initConv1dWeights(spec, random), random);
    const x = Float32Array.from({ length: 4 * 2 * 7 }, () => 2 * random() - 1);
    const y = Float32Array.from({ length: 4 * 3 }, (_, i) =>
      loss === 'mse' ? random() - 0.5 : i % 3 === (i % 4) % 3 ? 1 : 0,
    );
    const step = buildConv1dTrainStep(spec, { optimizer: 'sgd', loss, emitGradients: true });
    const data = { x: tensor(x, [4, 2, 7]), y: tensor(y, [4, 3]) };
    expect(await checkGradients(step, weights, data)).toBe(2 * 3 * kernel + 3 + 3 * 3 + 3);
  });
});

describe('conv block', () => {
  const spec: Conv1dSpec = { channels: 1, length: 16, filters: 6, kernel: 5, outputSize: 2 };

  it('infers the logits its train step scores (same cross-entropy)', async () => {
    const random = createRandom(9);
    const weights = perturbBiases(initConv1dWeights(spec, random), random);
    const data = waves(8, spec.length, random);
    await expectStepScoresAsInference(
      buildConv1dTrainStep(spec, { optimizer: 'sgd', loss: 'softmax_cross_entropy' }),
      buildConv1dInference(spec, weights).model,
      weights,
      data,
    );
  });

  it.each(['adam', 'momentum'] as const)(
    'learns to tell sine from square waves with %s',
    async (optimizer: MlpOptimizer) => {
      const random = createRandom(3);
      const weights = initConv1dWeights(spec, random);
      const data = waves(32, spec.length, random);
      const step = buildConv1dTrainStep(spec, { optimizer, loss: 'softmax_cross_entropy' });
      const losses = await train(step, weights, data, optimizer === 'adam' ? 0.02 : 0.1, 300);
      expect(mean(losses.slice(-10))).toBeLessThan(0.25 * mean(losses.slice(0, 10)));
    },
  );
});

// --- the attention block ----------------------------------------------------

describe.each([
  { loss: 'softmax_cross_entropy', causal: true, heads: 1 },
  { loss: 'mse', causal: false, heads: 1 },
  { loss: 'mse', causal: true, heads: 1 },
  // Two heads of width 2: each its own attention over half the projections.
  { loss: 'softmax_cross_entropy', causal: true, heads: 2 },
  { loss: 'mse', causal: false, heads: 2 },
] as const)(
  'attention block gradients ($loss, causal $causal, heads $heads)',
  ({ loss, causal, heads }) => {
    it('match central finite differences for every weight', async () => {
      const spec: AttentionSpec = { positions: 4, width: 4, outputSize: 3, causal, heads };
      const random = createRandom(17);
      const weights = perturbBiases(initAttentionWeights(spec, random), random);
      const x = Float32Array.from({ length: 3 * 4 * 4 }, () => 2 * random() - 1);
      const y = Float32Array.from({ length: 3 * 4 * 3 }, (_, i) =>
        loss === 'mse' ? random() - 0.5 : i % 3 === Math.floor(i / 3) % 3 ? 1 : 0,
      );
      const step = buildAttentionTrainStep(spec, { optimizer: 'sgd', loss, emitGradients: true });
      const data = { x: tensor(x, [3, 4, 4]), y: tensor(y, [3, 4, 3]) };
      expect(await checkGradients(step, weights, data)).toBe(4 * 16 + 4 + 4 * 3 + 3);
    });
  },
);

/**
 * The running mean: at each position, the mean of the first four features of
 * that position and every earlier one. Causal attention with equal scores
 * computes exactly that; the last four features are zero, room for it to
 * write the answer beside the residual input.
 */
function runningMeans(count: number, spec: AttentionSpec, random: () => number) {
  const { positions, width } = spec;
  const x = new Float32Array(count * positions * width);
  const y = new Float32Array(count * positions * spec.outputSize);
  for (let n = 0; n < count; n++) {
    const sums = new Float64Array(spec.outputSize);
    for (let t = 0; t < positions; t++) {
      for (let c = 0; c < spec.outputSize; c++) {
        const v = 2 * random() - 1;
        x[(n * positions + t) * width + c] = v;
        sums[c]! += v;
        y[(n * positions + t) * spec.outputSize + c] = sums[c]! / (t + 1);
      }
    }
  }
  return {
    x: tensor(x, [count, positions, width]),
    y: tensor(y, [count, positions, spec.outputSize]),
  };
}

describe('attention block', () => {
  it('infers the logits its train step scores (same squared error)', async () => {
    const spec: AttentionSpec = { positions: 5, width: 8, outputSize: 4, causal: true };
    const random = createRandom(23);
    const weights = perturbBiases(initAttentionWeights(spec, random), random);
    const data = runningMeans(6, spec, random);
    const inference = await open(buildAttentionInference(spec, weights).model);
    const logits = get(await inference({ x: data.x }), 'logits');
    const targets = data.y.data;
    const squaredError = mean(Array.from(logits, (v, i) => (v - targets[i]!) ** 2));
    const step = buildAttentionTrainStep(spec, { optimizer: 'sgd', loss: 'mse' });
    const [first] = await train(step, weights, data, 0, 1);
    expect(first).toBeCloseTo(squaredError, 5);
  });

  it('learns the running mean of a sequence with a causal mask', async () => {
    const spec: AttentionSpec = { positions: 6, width: 8, outputSize: 4, causal: true };
    const random = createRandom(29);
    const weights = initAttentionWeights(spec, random);
    const data = runningMeans(32, spec, random);
    const step = buildAttentionTrainStep(spec, { optimizer: 'adam', loss: 'mse' });
    const losses = await train(step, weights, data, 0.01, 300);
    expect(mean(losses.slice(-10))).toBeLessThan(0.1 * mean(losses.slice(0, 10)));
  });

  it('builds the single-head graph for one head; several heads attend differently, the mask in each', async () => {
    const spec: AttentionSpec = { positions: 4, width: 4, outputSize: 2, causal: true };
    const options = { optimizer: 'adam', loss: 'mse' } as const;
    expect(buildAttentionTrainStep({ ...spec, heads: 1 }, options).model).toEqual(
      buildAttentionTrainStep(spec, options).model,
    );
    const random = createRandom(37);
    const weights = perturbBiases(initAttentionWeights(spec, random), random);
    const x = Float32Array.from({ length: 16 }, () => 2 * random() - 1);
    const changed = x.slice();
    for (let i = 12; i < 16; i++) changed[i] = changed[i]! + 5; // only the last position
    const logits = async (s: AttentionSpec, input: Float32Array) =>
      get(
        await (
          await open(buildAttentionInference(s, weights).model)
        )({
          x: tensor(input, [1, 4, 4]),
        }),
        'logits',
      );
    const two = { ...spec, heads: 2 };
    const one = await logits(spec, x);
    const split = await logits(two, x);
    expect(Math.max(...split.map((v, i) => Math.abs(v - one[i]!)))).toBeGreaterThan(1e-4);
    const after = await logits(two, changed);
    expect(Array.from(after.slice(0, 6))).toEqual(Array.from(split.slice(0, 6)));
    expect(() => buildAttentionTrainStep({ ...spec, heads: 3 }, options)).toThrow(
      'AttentionSpec.heads 3 does not divide the width 4',
    );
  });

  it('keeps each position blind to later ones when causal', async () => {
    const spec: AttentionSpec = { positions: 4, width: 4, outputSize: 2, causal: true };
    const random = createRandom(31);
    const weights = perturbBiases(initAttentionWeights(spec, random), random);
    const inference = await open(buildAttentionInference(spec, weights).model);
    const x = Float32Array.from({ length: 16 }, () => 2 * random() - 1);
    const changed = x.slice();
    for (let i = 12; i < 16; i++) changed[i] = changed[i]! + 5; // only the last position
    const before = get(await inference({ x: tensor(x, [1, 4, 4]) }), 'logits');
    const after = get(await inference({ x: tensor(changed, [1, 4, 4]) }), 'logits');
    expect(Array.from(after.slice(0, 6))).toEqual(Array.from(before.slice(0, 6)));
    expect(after[6]).not.toEqual(before[6]);
  });
});

describe.each([
  { loss: 'softmax_cross_entropy', kernel: 3 },
  { loss: 'huber', kernel: 2 },
] as const)('conv2d block gradients ($loss, kernel $kernel)', ({ loss, kernel }) => {
  it('match central finite differences for every weight', async () => {
    const spec: Conv2dSpec = {
      channels: 2,
      height: 5,
      width: 4,
      filters: 3,
      kernel,
      outputSize: 3,
    };
    const random = createRandom(8);
    const weights = perturbBiases(initConv2dWeights(spec, random), random);
    const x = Float32Array.from({ length: 3 * 2 * 5 * 4 }, () => 2 * random() - 1);
    const y = Float32Array.from({ length: 3 * 3 }, (_, i) =>
      loss === 'huber' ? 3 * (random() - 0.5) : i % 3 === (i % 4) % 3 ? 1 : 0,
    );
    const step = buildConv2dTrainStep(spec, { optimizer: 'sgd', loss, emitGradients: true });
    const data = { x: tensor(x, [3, 2, 5, 4]), y: tensor(y, [3, 3]) };
    expect(await checkGradients(step, weights, data)).toBe(3 * 2 * kernel * kernel + 3 + 3 * 3 + 3);
  });
});

describe('conv2d block', () => {
  const spec: Conv2dSpec = {
    channels: 1,
    height: 8,
    width: 8,
    filters: 6,
    kernel: 3,
    outputSize: 2,
  };

  it('infers the logits its train step scores (same cross-entropy)', async () => {
    const random = createRandom(2);
    const weights = perturbBiases(initConv2dWeights(spec, random), random);
    const data = bars(6, random);
    await expectStepScoresAsInference(
      buildConv2dTrainStep(spec, { optimizer: 'sgd', loss: 'softmax_cross_entropy' }),
      buildConv2dInference(spec, weights).model,
      weights,
      data,
    );
  });

  it('learns to tell horizontal from vertical bars', async () => {
    const random = createRandom(4);
    const weights = initConv2dWeights(spec, random);
    const data = bars(32, random);
    const step = buildConv2dTrainStep(spec, { optimizer: 'adam', loss: 'softmax_cross_entropy' });
    const losses = await train(step, weights, data, 0.05, 200);
    expect(mean(losses.slice(-10))).toBeLessThan(0.25 * mean(losses.slice(0, 10)));
  });
});
