/**
 * `train.classifier`: trains a model on a dataset with an ONNX train-step
 * graph (forward, backward, loss and the optimizer update are all ONNX ops,
 * weights in → updated weights out), since onnxruntime-web has no training
 * API. Weights are fed back each step; the loss streams out as it falls.
 */
import { defineNodeKind } from '../catalog/kind';
import { expectDataset, expectModel, type Dataset, type ModelValue } from '../catalog/values';
import type { MlpSpec } from '../onnx/mlp-spec';
import { buildMlpInference, buildMlpTrainStep, initMlpWeights } from '../onnx/mlp';
import { float32, nodeBackends, type Tensor } from '../engine/runtime';
import { createRandom, permutation } from '../random';

/** Copy rows `order[from..from+size)` into a batch of features and one-hot targets. */
function fillBatch(
  data: Dataset,
  order: Uint32Array,
  from: number,
  x: Float32Array,
  y: Float32Array,
): void {
  const size = y.length / data.classes;
  y.fill(0);
  for (let i = 0; i < size; i++) {
    const row = order[(from + i) % data.count]!;
    x.set(
      data.features.subarray(row * data.featureSize, (row + 1) * data.featureSize),
      i * data.featureSize,
    );
    y[i * data.classes + data.labels[row]!] = 1;
  }
}

export const trainClassifier = defineNodeKind({
  kind: 'train.classifier',
  title: 'Train classifier',
  category: 'train',
  description:
    'Trains a model with mini-batch SGD (optionally with momentum) on softmax cross-entropy. The loss streams out every few steps.',
  params: {
    steps: { type: 'int', default: 200, min: 1, max: 1_000_000, description: 'Training steps.' },
    batch_size: { type: 'int', default: 64, min: 1, max: 65_536, description: 'Rows per step.' },
    lr: { type: 'number', default: 0.1, min: 0, max: 10, description: 'Learning rate.' },
    momentum: {
      type: 'number',
      default: 0.9,
      min: 0,
      max: 0.999,
      description: 'Momentum coefficient; 0 is plain SGD.',
    },
    log_every: {
      type: 'int',
      default: 10,
      min: 1,
      max: 100_000,
      description: 'Emit the mean loss of every this many steps.',
    },
    seed: { type: 'int', default: 0, min: 0, description: 'Seed of weight init and batch order.' },
    backend: {
      type: 'enum',
      options: nodeBackends,
      default: 'auto',
      description:
        'Where the steps run: auto follows the run; webgpu requires it (the run waits for an engine with WebGPU); prefer-webgpu falls back to wasm.',
    },
  },
  inputs: [
    { name: 'model', type: 'model', description: 'The model to train (untrained or trained).' },
    { name: 'dataset', type: 'dataset', description: 'Training rows.' },
  ],
  outputs: [
    { name: 'loss', type: 'number', stream: true, description: 'Mean training loss, streamed.' },
    { name: 'model', type: 'model', description: 'The model with its trained weights.' },
  ],
  async execute(ctx) {
    const { steps, batch_size, lr, momentum, log_every, seed, backend } = ctx.params;
    const model = expectModel(ctx.inputs.model, 'model');
    const data = expectDataset(ctx.inputs.dataset, 'dataset');
    const spec: MlpSpec = {
      inputSize: data.featureSize,
      hidden: model.hidden,
      outputSize: data.classes,
      activation: model.activation,
    };
    const random = createRandom(seed);
    let weights = model.weights ?? initMlpWeights(spec, random);
    const step = buildMlpTrainStep(spec, {
      optimizer: momentum > 0 ? 'momentum' : 'sgd',
      loss: 'softmax_cross_entropy',
    });
    const session = await ctx.runtime.createSession(step.model, backend);
    ctx.log(`training on ${session.backend}: ${steps} steps of ${batch_size} rows`);
    if (backend === 'prefer-webgpu' && session.backend !== 'webgpu')
      ctx.log('preferred webgpu, but this engine has no WebGPU adapter: ran on wasm');
    try {
      const size = Math.min(batch_size, data.count);
      const x = new Float32Array(size * data.featureSize);
      const y = new Float32Array(size * data.classes);
      const velocities: Record<string, Float32Array> = {};
      for (const slot of weights.layout)
        velocities[slot.name] = new Float32Array(weights.values[slot.name]!.length);
      let order = permutation(data.count, random);
      let cursor = 0;
      let lossSum = 0;
      let lossCount = 0;
      for (let i = 0; i < steps; i++) {
        if (cursor + size > data.count) {
          order = permutation(data.count, random);
          cursor = 0;
        }
        fillBatch(data, order, cursor, x, y);
        cursor += size;
        const feeds: Record<string, Tensor> = {
          [step.inputs.x]: float32(x, [size, data.featureSize]),
          [step.inputs.y]: float32(y, [size, data.classes]),
          [step.inputs.lr]: float32(Float32Array.of(lr), []),
        };
        if (step.inputs.momentum)
          feeds[step.inputs.momentum] = float32(Float32Array.of(momentum), []);
        for (const slot of weights.layout) {
          feeds[step.inputs.weights[slot.name]!] = float32(weights.values[slot.name]!, slot.dims);
          const velocity = step.inputs.velocities[slot.name];
          if (velocity) feeds[velocity] = float32(velocities[slot.name]!, slot.dims);
        }
        const out = await session.run(feeds);
        const values: Record<string, Float32Array> = {};
        for (const slot of weights.layout) {
          values[slot.name] = out[step.outputs.weights[slot.name]!]!.data as Float32Array;
          const velocity = step.outputs.velocities[slot.name];
          if (velocity) velocities[slot.name] = out[velocity]!.data as Float32Array;
        }
        weights = { layout: weights.layout, values };
        lossSum += (out[step.outputs.loss]!.data as Float32Array)[0]!;
        lossCount++;
        if (lossCount === log_every || i === steps - 1) {
          ctx.emit('loss', lossSum / lossCount);
          lossSum = 0;
          lossCount = 0;
        }
        ctx.progress(i + 1, steps);
        await ctx.checkpoint();
      }
    } finally {
      await session.release();
    }
    const trained: ModelValue = {
      ...model,
      inputSize: spec.inputSize,
      outputSize: spec.outputSize,
      weights,
    };
    ctx.artifact('model', buildMlpInference(spec, weights).model, 'application/onnx');
    ctx.emit('model', trained);
  },
});
