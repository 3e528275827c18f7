/**
 * `train.world_model`: trains a next-state world model on context windows
 * drawn from a live data source while its producers keep generating. Each
 * step asks the flow controller for a batch (which may wait for a refill,
 * for a batch's quota, or for the planned rate — every wait is recorded),
 * turns the windows into teacher-forced rows (observations and actions in,
 * the next observation's change out) and runs one ONNX train step with mean
 * squared error on the run's backend. The weights and the optimizer state
 * stay on the device between steps; only the loss is read back each step.
 *
 * Training ends after `steps` steps, or earlier when the data engine will
 * never fund a complete batch again (a production ceiling was reached).
 */
import { backendParam } from './backend-param';
import { defineNodeKind } from '../catalog/kind';
import { expectModel } from '../catalog/values';
import {
  disposeAll,
  float32,
  hostOutput,
  readTensor,
  type Feed,
  type Tensor,
} from '../runtime/tensor-runtime';
import { ContextReader } from '../live/context-reader';
import { expectContextWindows } from '../live/live-source';
import {
  fillWorldModelRows,
  worldModelInputSize,
  type WorldModelShape,
  type WorldModelValue,
} from '../live/world-model';
import {
  buildMlpInference,
  buildMlpTrainStep,
  elementCount,
  initMlpWeights,
  mlpOptimizers,
  type MlpSpec,
  type MlpWeights,
} from '../onnx/mlp';
import { createRandom } from '../random';
import { FlowbenchError } from '../errors';

const scalar = (v: number): Tensor => float32(Float32Array.of(v), []);

export const trainWorldModel = defineNodeKind({
  kind: 'train.world_model',
  title: 'Train world model',
  category: 'train',
  description:
    'Trains a model to predict the next observation from the last observations and actions, on context windows sampled from a live data source, with mean squared error. The loss streams out as it falls.',
  params: {
    steps: { type: 'int', default: 300, min: 1, max: 1_000_000, description: 'Training steps.' },
    optimizer: {
      type: 'enum',
      options: mlpOptimizers,
      default: 'adam',
      description: 'Update rule: sgd, momentum (μ 0.9) or adam (β 0.9, 0.999).',
    },
    lr: { type: 'number', default: 0.003, min: 0, max: 10, description: 'Learning rate.' },
    log_every: {
      type: 'int',
      default: 5,
      min: 1,
      max: 100_000,
      description: 'Emit the mean loss of every this many steps.',
    },
    seed: { type: 'int', default: 0, min: 0, description: 'Seed of the weight init.' },
    backend: backendParam('Where the steps run'),
  },
  inputs: [
    { name: 'model', type: 'model', description: 'The architecture to train (an MLP).' },
    { name: 'windows', type: 'windows', description: 'Context windows from a live source.' },
  ],
  outputs: [
    { name: 'loss', type: 'number', stream: true, description: 'Mean training loss, streamed.' },
    { name: 'model', type: 'model', description: 'The trained world model.' },
  ],
  async execute(ctx) {
    const { steps, optimizer, lr, log_every, seed, backend } = ctx.params;
    const model = expectModel(ctx.inputs.model, 'model');
    const windows = expectContextWindows(ctx.inputs.windows, 'windows');
    const { environment } = windows.source;
    const shape: WorldModelShape = {
      simulator: environment.simulator,
      contextLength: windows.window.contextLength,
      observationSize: environment.observationSize,
      actionSize: environment.actionSize,
    };
    const spec: MlpSpec = {
      inputSize: worldModelInputSize(shape),
      hidden: model.hidden,
      outputSize: shape.observationSize,
      activation: model.activation,
    };
    if (
      model.weights &&
      (model.inputSize !== spec.inputSize || model.outputSize !== spec.outputSize)
    )
      throw new FlowbenchError('node-input', {
        problem: `input 'model' has weights for ${model.inputSize} inputs and ${model.outputSize} outputs, but this world model needs ${spec.inputSize} and ${spec.outputSize}: connect an untrained MLP`,
      });
    const initial = model.weights ?? initMlpWeights(spec, createRandom(seed));
    const step = buildMlpTrainStep(spec, { optimizer, loss: 'mse' });
    const session = await ctx.runtime.createSession(step.model, backend, {
      deviceOutputs: step.carried.map((c) => c.output),
    });
    ctx.log(
      `training on ${session.backend}: up to ${steps} steps of ${windows.batchSize} windows (${windows.window.contextLength} context + ${windows.window.predictionLength} predicted steps)`,
    );
    const reader = new ContextReader(windows, ctx.signal);
    // Weights in, zeroed optimizer state; from then on each step's outputs feed the next.
    let carried: Record<string, Feed> = {};
    for (const c of step.carried)
      carried[c.input] = float32(
        c.role === 'weight' ? initial.values[c.weight]! : new Float32Array(elementCount(c.dims)),
        c.dims,
      );
    let trained = 0;
    try {
      const rowsMax = windows.batchSize * windows.window.predictionLength;
      const x = new Float32Array(rowsMax * spec.inputSize);
      const y = new Float32Array(rowsMax * spec.outputSize);
      const hyper: Record<string, Tensor> = { [step.inputs.lr]: scalar(lr) };
      if (step.inputs.momentum) hyper[step.inputs.momentum] = scalar(0.9);
      const adam = step.inputs.adam;
      if (adam) {
        hyper[adam.beta1] = scalar(0.9);
        hyper[adam.beta2] = scalar(0.999);
        hyper[adam.epsilon] = scalar(1e-8);
      }
      let lossSum = 0;
      let lossCount = 0;
      for (let i = 0; i < steps; i++) {
        const chunks = await reader.next();
        if (!chunks) {
          ctx.log(`stopped after ${i} steps: the data engine will fund no more complete batches`);
          break;
        }
        const rows = fillWorldModelRows(shape, chunks, x, y);
        if (rows === 0) continue; // every window was masked out: nothing to learn from
        const feeds: Record<string, Feed> = {
          ...hyper,
          ...carried,
          [step.inputs.x]: float32(x.subarray(0, rows * spec.inputSize), [rows, spec.inputSize]),
          [step.inputs.y]: float32(y.subarray(0, rows * spec.outputSize), [rows, spec.outputSize]),
        };
        if (adam) feeds[adam.step] = scalar(trained + 1);
        const out = await session.run(feeds);
        const next: Record<string, Feed> = {};
        for (const c of step.carried) {
          const value = out[c.output];
          if (value === undefined) throw new Error(`the train step returned no ${c.output}`);
          next[c.input] = value;
        }
        disposeAll(Object.values(carried));
        carried = next;
        trained++;
        lossSum += hostOutput(out, step.outputs.loss).data[0]!;
        lossCount++;
        if (lossCount === log_every || i === steps - 1) {
          ctx.emit('loss', lossSum / lossCount);
          lossSum = 0;
          lossCount = 0;
        }
        ctx.progress(i + 1, steps);
        await ctx.checkpoint();
      }
      if (lossCount > 0) ctx.emit('loss', lossSum / lossCount);
      if (trained === 0)
        throw new Error(
          'The data engine never funded a complete batch: raise max_generated_episodes or lower batch_size',
        );
      const values: Record<string, Float32Array> = {};
      for (const c of step.carried)
        if (c.role === 'weight')
          values[c.weight] = (await readTensor(carried[c.input]!)).data as Float32Array;
      const weights: MlpWeights = { layout: initial.layout, values };
      ctx.artifact('model', buildMlpInference(spec, weights).model, 'application/onnx');
      const result: WorldModelValue = {
        ...model,
        inputSize: spec.inputSize,
        outputSize: spec.outputSize,
        weights,
        worldModel: shape,
      };
      ctx.log(`trained ${trained} steps`);
      ctx.emit('model', result);
    } finally {
      disposeAll(Object.values(carried));
      await session.release();
    }
  },
});
