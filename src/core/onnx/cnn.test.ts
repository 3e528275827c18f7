/**
 * The CNN (conv → ReLU → max-pool blocks, a linear head) on onnxruntime
 * (WASM, under Node): every weight's gradient against central finite
 * differences of the loss — odd sides (the pool drops a row) and even
 * kernels included — the inference graph scoring what the train step
 * optimises, the memory estimate knowing every op, and a few hundred steps
 * learning a fixed image problem.
 */
import { describe, expect, it } from 'vitest';
import { createRandom } from '../random.ts';
import { buildLossGraph } from './block-graphs.ts';
import { buildCnnInference, cnnRowBlock, initCnnWeights, type CnnSpec } from './cnn.ts';
import { buildCnnTrainStep } from './cnn-train.ts';
import { estimateMemory, inferShapes } from './memory.ts';
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
  weightFeeds,
  type Feeds,
} from './testing.ts';

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

  it('infers the logits its train step and its loss graph score (same cross-entropy)', async () => {
    const random = createRandom(2);
    const weights = perturbBiases(initCnnWeights(spec, random), random);
    const data = bars(6, random);
    const crossEntropy = await expectStepScoresAsInference(
      buildCnnTrainStep(spec, { optimizer: 'sgd', loss: 'softmax_cross_entropy' }),
      buildCnnInference(spec, weights).model,
      weights,
      data,
    );
    const lossGraph = buildLossGraph(cnnRowBlock(spec), 'softmax_cross_entropy');
    const feeds: Feeds = { x: data.x, y: data.y, ...weightFeeds(weights) };
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
