/**
 * The pooled attention block (per-position embedding, a pre-norm
 * transformer layer: single-head self-attention and a ReLU feed-forward,
 * each with a residual; mean over positions, a last layer norm, a linear
 * head) on onnxruntime (WASM, under Node): every weight's gradient against
 * central finite differences of the loss, with and without the
 * feed-forward — so the backward of the mean pool, the feed-forward, every
 * layer norm, the softmax attention and the embedding each answer for the
 * weights behind them — the inference graph scoring what the train step
 * optimises, the memory estimate sizing every gradient, and a few hundred
 * steps learning a fixed sequence problem.
 */
import { describe, expect, it } from 'vitest';
import { createRandom } from '../random.ts';
import { buildLossGraph } from './block-graphs.ts';
import { estimateMemory, inferShapes } from './memory.ts';
import type { MlpWeights } from './mlp.ts';
import { elementCount } from './mlp-spec.ts';
import {
  buildPooledAttentionInference,
  initPooledAttentionWeights,
  pooledAttentionRowBlock,
  pooledAttentionWeightLayout,
  type PooledAttentionSpec,
} from './pooled-attention.ts';
import { buildPooledAttentionTrainStep } from './pooled-attention-train.ts';
import {
  tensor,
  open,
  get,
  checkGradients,
  train,
  mean,
  expectStepScoresAsInference,
  weightFeeds,
} from './testing.ts';

/** Non-zero biases and a norm scale off 1, so their gradients are checked off the origin. */
function perturbVectors(weights: MlpWeights, random: () => number): MlpWeights {
  for (const s of weights.layout)
    if (s.dims.length === 1)
      get(weights.values, s.name).forEach((v, i, a) => (a[i] = v + random() - 0.5));
  return weights;
}

describe.each([
  {
    loss: 'softmax_cross_entropy',
    channels: 2,
    positions: 4,
    width: 3,
    feedForward: 5,
    outputSize: 3,
  },
  { loss: 'huber', channels: 1, positions: 5, width: 3, feedForward: 0, outputSize: 2 },
  { loss: 'mse', channels: 3, positions: 1, width: 2, feedForward: 2, outputSize: 1 },
  // Several heads: each attends over its own slice of the projections.
  {
    loss: 'softmax_cross_entropy',
    channels: 1,
    positions: 4,
    width: 4,
    feedForward: 3,
    outputSize: 2,
    heads: 2,
  },
  { loss: 'mse', channels: 2, positions: 3, width: 6, feedForward: 0, outputSize: 1, heads: 3 },
] as const)(
  'pooled attention gradients ($loss, $channels×$positions, width $width, feed-forward $feedForward, heads $heads)',
  (example) => {
    const { loss, channels, positions, width, feedForward, outputSize } = example;
    const heads = 'heads' in example ? example.heads : undefined;
    it('match central finite differences for every weight', async () => {
      const spec: PooledAttentionSpec = {
        channels,
        positions,
        width,
        feedForward,
        outputSize,
        ...(heads !== undefined && { heads }),
      };
      const random = createRandom(11);
      const weights = perturbVectors(initPooledAttentionWeights(spec, random), random);
      const rows = 3;
      const x = Float32Array.from({ length: rows * channels * positions }, () => 2 * random() - 1);
      const y = Float32Array.from({ length: rows * outputSize }, (_, i) =>
        loss === 'softmax_cross_entropy'
          ? Number(i % outputSize === Math.floor(i / outputSize) % outputSize)
          : 3 * (random() - 0.5),
      );
      const step = buildPooledAttentionTrainStep(spec, {
        optimizer: 'sgd',
        loss,
        emitGradients: true,
      });
      const data = { x: tensor(x, [rows, channels, positions]), y: tensor(y, [rows, outputSize]) };
      const all = pooledAttentionWeightLayout(spec).reduce((n, s) => n + elementCount(s.dims), 0);
      expect(await checkGradients(step, weights, data)).toBe(all);
    });
  },
);

/**
 * Sequences of one channel whose class is where their largest value sits:
 * in the first half (0) or the second (1) — a question about the whole
 * sequence that no single position answers.
 */
function peaks(count: number, positions: number, random: () => number) {
  const x = new Float32Array(count * positions);
  const y = new Float32Array(count * 2);
  for (let n = 0; n < count; n++) {
    let best = 0;
    for (let t = 0; t < positions; t++) {
      x[n * positions + t] = 2 * random() - 1;
      if (x[n * positions + t]! > x[n * positions + best]!) best = t;
    }
    y[n * 2 + (best < positions / 2 ? 0 : 1)] = 1;
  }
  return { x: tensor(x, [count, 1, positions]), y: tensor(y, [count, 2]) };
}

describe('pooled attention block', () => {
  const spec: PooledAttentionSpec = {
    channels: 1,
    positions: 6,
    width: 8,
    feedForward: 16,
    outputSize: 2,
  };

  it('infers the logits its train step and its loss graph score (same cross-entropy)', async () => {
    const random = createRandom(13);
    const weights = perturbVectors(initPooledAttentionWeights(spec, random), random);
    const data = peaks(8, spec.positions, random);
    const crossEntropy = await expectStepScoresAsInference(
      buildPooledAttentionTrainStep(spec, {
        optimizer: 'sgd',
        loss: 'softmax_cross_entropy',
      }),
      buildPooledAttentionInference(spec, weights).model,
      weights,
      data,
    );
    const lossGraph = await open(
      buildLossGraph(pooledAttentionRowBlock(spec), 'softmax_cross_entropy').model,
    );
    const [validation] = get(await lossGraph({ ...data, ...weightFeeds(weights) }), 'loss');
    expect(validation).toBeCloseTo(crossEntropy, 5);
  });

  it.each([
    { heads: 'one head', of: {} },
    { heads: 'two heads', of: { heads: 2 } },
  ])('learns where the peak of a sequence is with $heads, its loss falling', async ({ of }) => {
    const learner: PooledAttentionSpec = { ...spec, ...of };
    const random = createRandom(17);
    const weights = initPooledAttentionWeights(learner, random);
    const data = peaks(64, learner.positions, random);
    const step = buildPooledAttentionTrainStep(learner, {
      optimizer: 'adam',
      loss: 'softmax_cross_entropy',
    });
    const losses = await train(step, weights, data, 0.02, 300);
    expect(mean(losses.slice(-10))).toBeLessThan(0.25 * mean(losses.slice(0, 10)));
  });

  it('builds the single-head graph for one head, and attends differently with several', async () => {
    const one = buildPooledAttentionTrainStep(
      { ...spec, heads: 1 },
      { optimizer: 'sgd', loss: 'softmax_cross_entropy' },
    );
    const unnamed = buildPooledAttentionTrainStep(spec, {
      optimizer: 'sgd',
      loss: 'softmax_cross_entropy',
    });
    expect(one.model).toEqual(unnamed.model);
    // Heads split the projections: the same weights, the same layout, other logits.
    const two: PooledAttentionSpec = { ...spec, heads: 2 };
    expect(pooledAttentionWeightLayout(two)).toEqual(pooledAttentionWeightLayout(spec));
    const random = createRandom(19);
    const weights = initPooledAttentionWeights(spec, random);
    const { x } = peaks(4, spec.positions, random);
    const logits = async (s: PooledAttentionSpec) =>
      get(await (await open(buildPooledAttentionInference(s, weights).model))({ x }), 'logits');
    const single = await logits(spec);
    const split = await logits(two);
    expect(split).toHaveLength(single.length);
    expect(Math.max(...split.map((v, i) => Math.abs(v - single[i]!)))).toBeGreaterThan(1e-4);
  });

  it('refuses heads that do not divide the width, naming the widths that would fit', () => {
    expect(() => pooledAttentionWeightLayout({ ...spec, heads: 3 })).toThrow(
      "PooledAttentionSpec.heads 3 does not divide the width 8: each head takes width / heads of every position's vector, so the width must be a multiple of 3 (6 or 9)",
    );
    expect(() => pooledAttentionWeightLayout({ ...spec, heads: 0 })).toThrow(
      'PooledAttentionSpec.heads must be a positive integer, got 0',
    );
  });

  it('is sized for the device pool: every gradient the shape of its weight', () => {
    const wide: PooledAttentionSpec = {
      channels: 2,
      positions: 12,
      width: 16,
      feedForward: 32,
      outputSize: 4,
    };
    const step = buildPooledAttentionTrainStep(wide, {
      optimizer: 'adam',
      loss: 'softmax_cross_entropy',
      emitGradients: true,
    });
    const shapes = inferShapes(step.graph, { dims: { batch: 8 } });
    for (const c of step.carried) expect(shapes.get(c.output)?.dims, c.output).toEqual(c.dims);
    for (const [weight, grad] of Object.entries(step.outputs.gradients)) {
      const slot = step.carried.find((c) => c.weight === weight && c.role === 'weight');
      expect(shapes.get(grad)?.dims, grad).toEqual(slot?.dims);
    }
    const resident = step.carried.map((c) => c.input);
    const at = (batch: number) => estimateMemory(step.graph, { dims: { batch }, resident });
    // The attention weights and their gradient alone: [batch, 12, 12] floats each.
    const attention = 12 * 12 * 4;
    expect(at(64).peakBytes - at(8).peakBytes).toBeGreaterThan(56 * 2 * attention);

    // Four heads: the same gradients, and attention weights [batch, 4, 12, 12] each.
    const headed = buildPooledAttentionTrainStep(
      { ...wide, heads: 4 },
      { optimizer: 'adam', loss: 'softmax_cross_entropy', emitGradients: true },
    );
    const headedShapes = inferShapes(headed.graph, { dims: { batch: 8 } });
    for (const [weight, grad] of Object.entries(headed.outputs.gradients)) {
      const slot = headed.carried.find((c) => c.weight === weight && c.role === 'weight');
      expect(headedShapes.get(grad)?.dims, grad).toEqual(slot?.dims);
    }
    const headedAt = (batch: number) =>
      estimateMemory(headed.graph, { dims: { batch }, resident }).peakBytes;
    expect(headedAt(64) - headedAt(8)).toBeGreaterThan(56 * 2 * 4 * attention);
  });
});

/** The weights as feeds by name. */
