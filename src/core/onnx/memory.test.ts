import { describe, expect, it } from 'vitest';
import { createRandom } from '../random.ts';
import { GraphBuilder } from './graph.ts';
import { TracingGraphBuilder } from './graph-trace.ts';
import { estimateMemory, inferShapes } from './memory.ts';
import { buildMlpInference, buildMlpTrainStep, initMlpWeights, type MlpSpec } from './mlp.ts';
import { buildConv1dTrainStep } from './conv1d-train.ts';
import { buildConv2dTrainStep } from './conv2d-train.ts';
import { buildAttentionTrainStep } from './attention-train.ts';
import { elementCount } from './mlp-spec.ts';

/** `s = Σ_cols relu(x · W)`, written on any builder. */
function tiny(g: GraphBuilder): void {
  const x = g.input('x', 'float32', ['batch', 3]);
  const w = g.input('W', 'float32', [3, 4]);
  const z = g.op('MatMul', [x, w]);
  const h = g.op('Relu', [z]);
  const s = g.op('ReduceSum', [h, g.constant([1], 'int64')], { keepdims: 0 }, { name: 's' });
  g.output(s, 's', 'float32', ['batch']);
}

describe('TracingGraphBuilder', () => {
  it('writes the same model bytes as GraphBuilder and records its graph', () => {
    const plain = new GraphBuilder('tiny');
    const traced = new TracingGraphBuilder('tiny');
    tiny(plain);
    tiny(traced);
    expect(traced.toModel()).toEqual(plain.toModel());
    const trace = traced.trace();
    expect(trace.nodes.map((n) => n.opType)).toEqual(['MatMul', 'Relu', 'ReduceSum']);
    expect(trace.inputs.map((i) => i.name)).toEqual(['x', 'W']);
    expect(trace.constants).toEqual([
      { name: expect.any(String) as string, elemType: 'int64', dims: [1], values: [1] },
    ]);
    expect(trace.outputs).toEqual([{ name: 's', elemType: 'float32', shape: ['batch'] }]);
  });
});

describe('estimateMemory', () => {
  it('infers shapes and keeps each tensor alive until its last reader', () => {
    const g = new TracingGraphBuilder('tiny');
    tiny(g);
    const trace = g.trace();
    const shapes = inferShapes(trace, { dims: { batch: 10 } });
    expect(shapes.get('s')).toEqual({ elemType: 'float32', dims: [10] });
    // x: 120 B fed; W: 48 B resident; z, h: 160 B each; s: 40 B; axes: 8 B constant.
    // Peak is at Relu: x + z + h = 440 B (z dies there, h at ReduceSum).
    expect(estimateMemory(trace, { dims: { batch: 10 }, resident: ['W'] })).toEqual({
      constantBytes: 8,
      residentBytes: 48,
      feedBytes: 120,
      peakBytes: 440,
    });
  });

  it('names what it cannot resolve: a missing dim, an unknown resident, an unknown operator', () => {
    const g = new TracingGraphBuilder('odd');
    tiny(g);
    expect(() => estimateMemory(g.trace())).toThrow(/input x needs a value for "batch"/);
    expect(() => estimateMemory(g.trace(), { dims: { batch: 1 }, resident: ['w'] })).toThrow(
      /resident w is not an input/,
    );
    const h = new TracingGraphBuilder('rnn');
    h.output(h.op('LSTM', [h.input('x', 'float32', [1, 1, 4])]), 'y', 'float32');
    expect(() => estimateMemory(h.trace())).toThrow(/rnn: no shape rule for operator LSTM/);
  });

  it('sizes an MLP train step: carried state is resident, its updated copy part of the peak', () => {
    const spec: MlpSpec = { inputSize: 784, hidden: [256], outputSize: 10, activation: 'relu' };
    const weightBytes = (784 * 256 + 256 + 256 * 10 + 10) * 4;
    const hidden = 256 * 256 * 4; // one [batch, 256] activation at batch 256
    for (const [optimizer, copies] of [
      ['sgd', 1],
      ['momentum', 2],
      ['adam', 3],
    ] as const) {
      const step = buildMlpTrainStep(spec, { optimizer, loss: 'softmax_cross_entropy' });
      const resident = step.carried.map((c) => c.input);
      const at = (batch: number) => estimateMemory(step.graph, { dims: { batch }, resident });
      const m = at(256);
      expect(m.residentBytes).toBe(copies * weightBytes);
      expect(m.feedBytes).toBe(256 * (784 + 10) * 4 + 4 * (optimizer === 'adam' ? 5 : copies));
      // Fed batch, the new state, and at least z and relu(z) of the hidden layer at once…
      expect(m.peakBytes).toBeGreaterThanOrEqual(m.feedBytes + copies * weightBytes + 2 * hidden);
      // …but not every tensor of the graph at once.
      expect(m.peakBytes).toBeLessThan(m.feedBytes + copies * weightBytes + 12 * hidden);
      expect(at(512).peakBytes).toBeGreaterThan(m.peakBytes);
    }
  });

  it('counts baked weights of an inference model as constants', () => {
    const spec: MlpSpec = { inputSize: 4, hidden: [8], outputSize: 3, activation: 'gelu' };
    const weights = initMlpWeights(spec, createRandom(1));
    const baked = estimateMemory(buildMlpInference(spec, weights).graph, { dims: { batch: 2 } });
    const fed = estimateMemory(buildMlpInference(spec).graph, { dims: { batch: 2 } });
    const weightBytes = (4 * 8 + 8 + 8 * 3 + 3) * 4;
    expect(baked.constantBytes - fed.constantBytes).toBe(weightBytes);
    expect(fed.feedBytes - baked.feedBytes).toBe(weightBytes);
  });

  it.each([
    {
      block: 'conv',
      build: () =>
        buildConv1dTrainStep(
          { channels: 3, length: 64, filters: 16, kernel: 5, outputSize: 4 },
          { optimizer: 'adam', loss: 'softmax_cross_entropy', emitGradients: true },
        ),
      // Conv output and its ReLU mask/gradient: [batch, 16, 64] floats each.
      activation: 16 * 64 * 4,
    },
    {
      block: 'conv2d',
      build: () =>
        buildConv2dTrainStep(
          { channels: 3, height: 12, width: 10, filters: 8, kernel: 3, outputSize: 4 },
          { optimizer: 'adam', loss: 'huber', emitGradients: true },
        ),
      // Conv output and its ReLU mask/gradient: [batch, 8, 12, 10] floats each.
      activation: 8 * 12 * 10 * 4,
    },
    {
      block: 'attention',
      build: () =>
        buildAttentionTrainStep(
          { positions: 32, width: 16, outputSize: 4, causal: true },
          { optimizer: 'momentum', loss: 'mse', emitGradients: true },
        ),
      // Attention weights and their gradient: [batch, 32, 32] floats each.
      activation: 32 * 32 * 4,
    },
  ])('sizes the $block train step from shapes that match its weights', ({ build, activation }) => {
    const step = build();
    const shapes = inferShapes(step.graph, { dims: { batch: 8 } });
    // Every gradient and every updated tensor has its weight's shape (Conv, Reshape, Unsqueeze rules).
    for (const c of step.carried) expect(shapes.get(c.output)?.dims, c.output).toEqual(c.dims);
    for (const [weight, grad] of Object.entries(step.outputs.gradients)) {
      const slot = step.carried.find((c) => c.weight === weight && c.role === 'weight');
      expect(shapes.get(grad)?.dims, grad).toEqual(slot?.dims);
    }
    expect(shapes.get(step.outputs.loss)?.dims).toEqual([]);
    const resident = step.carried.map((c) => c.input);
    const carriedBytes = step.carried.reduce((sum, c) => sum + 4 * elementCount(c.dims), 0);
    const at = (batch: number) => estimateMemory(step.graph, { dims: { batch }, resident });
    expect(at(8).residentBytes).toBe(carriedBytes);
    expect(at(8).peakBytes).toBeGreaterThan(at(8).feedBytes + 8 * 2 * activation);
    expect(at(64).peakBytes - at(8).peakBytes).toBeGreaterThan(56 * 2 * activation);
  });
});
