import { describe, expect, it } from 'vitest';
import { createRandom } from '../random.ts';
import {
  buildMlpLoss,
  buildMlpTrainStep,
  initMlpWeights,
  type MlpLossKind,
  type MlpOptimizer,
  type MlpSpec,
  type TrainStep,
  type MlpWeights,
} from './mlp.ts';
import {
  checkGradientsOnLossGraph,
  get,
  open,
  perturbBiases,
  scalar,
  tensor,
  type Arrays,
  type Feeds,
} from './testing.ts';

/** Fresh weights with non-zero biases, so bias gradients are exercised off the origin. */
function randomWeights(spec: MlpSpec, random: () => number): MlpWeights {
  return perturbBiases(initMlpWeights(spec, random), random);
}

/** Inputs in [-scale, scale]; one-hot classes for cross-entropy, smooth real targets for MSE. */
function batchFor(spec: MlpSpec, loss: MlpLossKind, rows: number, random: () => number, scale = 1) {
  const x = Float32Array.from({ length: rows * spec.inputSize }, () => scale * (2 * random() - 1));
  const y = new Float32Array(rows * spec.outputSize);
  for (let r = 0; r < rows; r++) {
    if (loss === 'softmax_cross_entropy')
      y[r * spec.outputSize + Math.floor(random() * spec.outputSize)] = 1;
    else
      for (let c = 0; c < spec.outputSize; c++)
        y[r * spec.outputSize + c] = Math.sin(
          (c + 1) * (x[r * spec.inputSize] ?? 0) + (x[r * spec.inputSize + 1] ?? 0),
        );
  }
  return { x: tensor(x, [rows, spec.inputSize]), y: tensor(y, [rows, spec.outputSize]) };
}

/** Feeds for `step` from the carried arrays (by input name) and hyperparameters. */
function stepFeeds(
  step: TrainStep,
  carried: Arrays,
  hyper: { lr: number; momentum?: number; t?: number },
): Feeds {
  const feeds: Feeds = { [step.inputs.lr]: scalar(hyper.lr) };
  if (step.inputs.momentum !== null) feeds[step.inputs.momentum] = scalar(hyper.momentum ?? 0.9);
  if (step.inputs.adam !== null) {
    feeds[step.inputs.adam.beta1] = scalar(0.9);
    feeds[step.inputs.adam.beta2] = scalar(0.999);
    feeds[step.inputs.adam.epsilon] = scalar(1e-8);
    feeds[step.inputs.adam.step] = scalar(hyper.t ?? 1);
  }
  for (const c of step.carried) feeds[c.input] = tensor(get(carried, c.input), c.dims);
  return feeds;
}

/** Weights as given, optimizer state as zeros (or drawn by `state`), keyed by input name. */
function initialCarried(step: TrainStep, weights: MlpWeights, state?: () => number): Arrays {
  return Object.fromEntries(
    step.carried.map((c) => {
      const w = get(weights.values, c.weight);
      const values =
        c.role === 'weight'
          ? w.slice()
          : Float32Array.from(w, () => (state === undefined ? 0 : state()));
      return [c.input, values];
    }),
  );
}

const cases = [
  { activation: 'gelu', loss: 'softmax_cross_entropy' },
  { activation: 'relu', loss: 'mse' },
  { activation: 'tanh', loss: 'mse' },
  { activation: 'gelu', loss: 'mse' },
  { activation: 'tanh', loss: 'huber' },
] as const;

describe.each(cases)('train-step gradients ($activation, $loss)', ({ activation, loss }) => {
  it('match central finite differences of the loss graph for every weight', async () => {
    const spec: MlpSpec = { inputSize: 3, hidden: [5, 4], outputSize: 3, activation };
    const random = createRandom(21);
    const weights = randomWeights(spec, random);
    // Inputs in ±3 drive pre-activations well into each activation's curved part.
    const data = batchFor(spec, loss, 6, random, 3);
    const step = buildMlpTrainStep(spec, { optimizer: 'sgd', loss, emitGradients: true });
    const checked = await checkGradientsOnLossGraph(step, buildMlpLoss(spec, loss), weights, data);
    expect(checked).toBe(3 * 5 + 5 + 5 * 4 + 4 + 4 * 3 + 3);
  });
});

describe('optimizer updates against a JS reference', () => {
  const spec: MlpSpec = { inputSize: 2, hidden: [3], outputSize: 2, activation: 'gelu' };
  const closeTo = (actual: number, expected: number, what: string) =>
    expect(Math.abs(actual - expected), `${what}: ${actual} vs ${expected}`).toBeLessThanOrEqual(
      1e-5 * Math.max(1, Math.abs(expected)),
    );

  it('momentum carries its velocity over several steps: v ← μ·v + g, W ← W − lr·v', async () => {
    const random = createRandom(6);
    const step = buildMlpTrainStep(spec, {
      optimizer: 'momentum',
      loss: 'softmax_cross_entropy',
      emitGradients: true,
    });
    expect(step.carried.map((c) => `${c.role}:${c.input}→${c.output}`)).toEqual([
      'weight:W0→next.W0',
      'weight:b0→next.b0',
      'weight:W1→next.W1',
      'weight:b1→next.b1',
      'velocity:velocity.W0→next.velocity.W0',
      'velocity:velocity.b0→next.velocity.b0',
      'velocity:velocity.W1→next.velocity.W1',
      'velocity:velocity.b1→next.velocity.b1',
    ]);
    const run = await open(step.model);
    let carried = initialCarried(step, randomWeights(spec, random));
    // The JS reference keeps its own state, in float64, fed only the graph's gradients.
    const reference: Record<string, number[]> = Object.fromEntries(
      Object.entries(carried).map(([k, v]) => [k, Array.from(v)]),
    );
    for (let s = 0; s < 3; s++) {
      const data = batchFor(spec, 'softmax_cross_entropy', 4, random);
      const out = await run({ ...data, ...stepFeeds(step, carried, { lr: 0.2, momentum: 0.9 }) });
      for (const slot of ['W0', 'b0', 'W1', 'b1']) {
        const g = get(out, `grad.${slot}`);
        const v = get(reference, `velocity.${slot}`).map((vi, i) => 0.9 * vi + (g[i] as number));
        const w = get(reference, slot).map((wi, i) => wi - 0.2 * (v[i] as number));
        reference[`velocity.${slot}`] = v;
        reference[slot] = w;
        v.forEach((e, i) =>
          closeTo(get(out, `next.velocity.${slot}`)[i] as number, e, `v.${slot}`),
        );
        w.forEach((e, i) => closeTo(get(out, `next.${slot}`)[i] as number, e, slot));
      }
      carried = Object.fromEntries(step.carried.map((c) => [c.input, get(out, c.output)]));
    }
  });

  it('adam: moments, bias correction by the fed step counter, and the update', async () => {
    const random = createRandom(7);
    const step = buildMlpTrainStep(spec, {
      optimizer: 'adam',
      loss: 'softmax_cross_entropy',
      emitGradients: true,
    });
    expect(step.carried.filter((c) => c.role !== 'weight').map((c) => c.input)).toEqual([
      'm.W0',
      'v.W0',
      'm.b0',
      'v.b0',
      'm.W1',
      'v.W1',
      'm.b1',
      'v.b1',
    ]);
    const run = await open(step.model);
    const [b1, b2, eps, lr] = [0.9, 0.999, 1e-8, 0.01];
    const weights = randomWeights(spec, random);
    const fresh = initialCarried(step, weights);
    const warm = initialCarried(step, weights, () => 0.05 * random());
    for (const { carried, t } of [
      { carried: fresh, t: 1 },
      { carried: warm, t: 7 },
    ]) {
      const data = batchFor(spec, 'softmax_cross_entropy', 4, random);
      const out = await run({ ...data, ...stepFeeds(step, carried, { lr, t }) });
      for (const slot of ['W0', 'b0', 'W1', 'b1']) {
        const g = get(out, `grad.${slot}`);
        const w = get(carried, slot);
        const m = Array.from(get(carried, `m.${slot}`), (mi, i) => b1 * mi + (1 - b1) * g[i]!);
        const v = Array.from(get(carried, `v.${slot}`), (vi, i) => b2 * vi + (1 - b2) * g[i]! ** 2);
        const stepSize = lr / (1 - b1 ** t);
        const next = Array.from(
          w,
          (wi, i) => wi - (stepSize * m[i]!) / (Math.sqrt(v[i]!) / Math.sqrt(1 - b2 ** t) + eps),
        );
        m.forEach((e, i) => closeTo(get(out, `next.m.${slot}`)[i]!, e, `m.${slot} t=${t}`));
        v.forEach((e, i) => closeTo(get(out, `next.v.${slot}`)[i]!, e, `v.${slot} t=${t}`));
        next.forEach((e, i) => closeTo(get(out, `next.${slot}`)[i]!, e, `${slot} t=${t}`));
        if (t === 1)
          // Bias-corrected first step from zero moments: every weight moves by lr·sign(g).
          g.forEach((gi, i) => {
            if (Math.abs(gi) > 1e-4)
              expect(Math.abs(w[i]! - get(out, `next.${slot}`)[i]!)).toBeCloseTo(lr, 5);
          });
      }
    }
  });
});

/** `steps` full-batch steps from a fixed start; returns the loss before each step and after the last. */
async function trainLosses(
  spec: MlpSpec,
  loss: MlpLossKind,
  optimizer: MlpOptimizer,
  lr: number,
  steps: number,
): Promise<{ before: number; after: number; losses: number[] }> {
  const random = createRandom(2024);
  const data = batchFor(spec, loss, 64, random);
  if (loss === 'softmax_cross_entropy') {
    // Linearly separable classes, so a small network can fit them.
    const x = data.x.data;
    const y = data.y.data;
    y.fill(0);
    for (let r = 0; r < 64; r++) y[r * 2 + (x[r * 2]! - 0.5 * x[r * 2 + 1]! > 0.1 ? 1 : 0)] = 1;
  }
  const step = buildMlpTrainStep(spec, { optimizer, loss });
  const run = await open(step.model);
  const evaluate = await open(buildMlpLoss(spec, loss).model);
  let carried = initialCarried(step, initMlpWeights(spec, createRandom(1)));
  const lossOf = async (c: Arrays) =>
    get(
      await evaluate({
        ...data,
        ...Object.fromEntries(
          step.carried
            .filter((s) => s.role === 'weight')
            .map((s) => [s.input, tensor(get(c, s.input), s.dims)]),
        ),
      }),
      'loss',
    )[0]!;
  const before = await lossOf(carried);
  const losses: number[] = [];
  for (let s = 0; s < steps; s++) {
    const out = await run({
      ...data,
      ...stepFeeds(step, carried, { lr, momentum: 0.9, t: s + 1 }),
    });
    losses.push(get(out, step.outputs.loss)[0]!);
    carried = Object.fromEntries(step.carried.map((c) => [c.input, get(out, c.output)]));
  }
  return { before, after: await lossOf(carried), losses };
}

describe('train steps reduce the loss on a fixed synthetic problem', () => {
  const lrs: Record<MlpOptimizer, number> = { sgd: 0.5, momentum: 0.1, adam: 0.02 };
  it.each([
    { loss: 'softmax_cross_entropy', optimizer: 'sgd', activation: 'gelu' },
    { loss: 'softmax_cross_entropy', optimizer: 'momentum', activation: 'relu' },
    { loss: 'softmax_cross_entropy', optimizer: 'adam', activation: 'tanh' },
    { loss: 'mse', optimizer: 'sgd', activation: 'tanh' },
    { loss: 'mse', optimizer: 'momentum', activation: 'gelu' },
    { loss: 'mse', optimizer: 'adam', activation: 'relu' },
  ] as const)('$loss + $optimizer ($activation)', async ({ loss, optimizer, activation }) => {
    const spec: MlpSpec = { inputSize: 2, hidden: [16], outputSize: 2, activation };
    const { before, after, losses } = await trainLosses(spec, loss, optimizer, lrs[optimizer], 150);
    expect(losses.every(Number.isFinite)).toBe(true);
    expect(losses[0]).toBeCloseTo(before, 5);
    expect(after, `loss ${before} → ${after}`).toBeLessThan(0.3 * before);
  });
});

describe('optimizer state near zero', () => {
  const spec: MlpSpec = { inputSize: 2, hidden: [3], outputSize: 2, activation: 'relu' };
  // Feature 0 is zero in every row, so W0's first row gets no gradient: its state only decays.
  const data = {
    x: tensor(Float32Array.of(0, 1, 0, -2, 0, 0.5), [3, 2]),
    y: tensor(Float32Array.of(1, 0, 0, 1, 1, 0), [3, 2]),
  };
  // Just above the least normal float32 (about 1.18e-38): halved or times 0.9 it is denormal,
  // times 0.999 it is not.
  const normal = Math.fround(1.25e-38);
  /** W0's state after one step from `normal` everywhere (momentum 0.5; Adam's β's 0.9, 0.999). */
  async function stepFrom(optimizer: MlpOptimizer, flushDenormals?: boolean) {
    const step = buildMlpTrainStep(spec, {
      optimizer,
      loss: 'softmax_cross_entropy',
      ...(flushDenormals !== undefined && { flushDenormals }),
    });
    const carried = initialCarried(step, randomWeights(spec, createRandom(4)), () => normal);
    const run = await open(step.model);
    return run({ ...data, ...stepFeeds(step, carried, { lr: 0.1, momentum: 0.5 }) });
  }

  it('is made zero where it decays below the least normal float, and kept where it does not', async () => {
    const momentum = await stepFrom('momentum');
    // W0 is [2, 3]: its first row (feature 0) had no gradient, so its state only decayed.
    expect([...get(momentum, 'next.velocity.W0').subarray(0, 3)]).toEqual([0, 0, 0]);
    expect(
      get(momentum, 'next.velocity.W0')
        .subarray(3)
        .some((v) => v !== 0),
    ).toBe(true);
    const adam = await stepFrom('adam');
    expect([...get(adam, 'next.m.W0').subarray(0, 3)]).toEqual([0, 0, 0]);
    const decayed = Math.fround(Math.fround(0.999) * normal);
    expect(decayed).toBeGreaterThan(1.1754943508222875e-38);
    expect([...get(adam, 'next.v.W0').subarray(0, 3)]).toEqual([decayed, decayed, decayed]);
  });

  it('keeps its denormal values in a step built not to flush them', async () => {
    const kept = get(await stepFrom('momentum', false), 'next.velocity.W0').subarray(0, 3);
    const half = Math.fround(0.5 * normal);
    expect(half).toBeLessThan(1.1754943508222875e-38);
    expect([...kept]).toEqual([half, half, half]);
  });
});
