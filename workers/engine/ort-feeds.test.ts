/**
 * Feeds through the onnxruntime seam, on onnxruntime-web's WASM backend: a
 * training loop keeps one feed record and writes each batch into the same
 * buffers, and the runtime wraps a CPU tensor for onnxruntime once. These
 * tests hold that to what fresh feeds every step give, bit for bit.
 */
import * as ort from 'onnxruntime-web';
import { describe, expect, it } from 'vitest';
import type { Dataset } from '../../src/core/catalog/values';
import type { Tensor } from '../../src/core/runtime/tensor-runtime';
import { GraphBuilder } from '../../src/core/onnx/graph';
import {
  buildMlpTrainStep,
  initMlpWeights,
  type MlpOptimizer,
  type MlpSpec,
} from '../../src/core/onnx/mlp';
import { classifierBatches } from '../../src/core/nodes/classifier-batches';
import {
  DeviceMemoryPool,
  mlpTrainLoop,
  mlpTrainStepSession,
  modelId,
  ProgramRunner,
  requestId,
} from '../../src/core/programs';
import { createRandom } from '../../src/core/random';
import { OrtRuntime } from './ort-runtime';
import { engineInfo } from './adapter';

const spec: MlpSpec = { inputSize: 3, hidden: [8], outputSize: 2, activation: 'relu' };
const BATCH = 16;
const STEPS = 25;
const LR = 0.2;

/** 100 rows in 2 classes; 25 steps of 16 rows run past the 6 batches of an epoch. */
function dataset(): Dataset {
  const random = createRandom(7);
  const count = 100;
  const features = Float32Array.from({ length: count * 3 }, () => 2 * random() - 1);
  const labels = Int32Array.from({ length: count }, (_, i) =>
    features[i * 3]! + features[i * 3 + 1]! > 0 ? 1 : 0,
  );
  return { kind: 'dataset', name: 'line', features, labels, count, featureSize: 3, classes: 2 };
}
const data = dataset();
const order = () => createRandom(11);
const initial = () => initMlpWeights(spec, createRandom(3));
const wasmRuntime = () => new OrtRuntime(engineInfo(null), () => Promise.resolve(ort), 'wasm');

/** The loop through the program runner and `OrtRuntime`: one feed record, batches in reused buffers. */
async function throughRunner(optimizer: MlpOptimizer) {
  const step = buildMlpTrainStep(spec, { optimizer, loss: 'softmax_cross_entropy' });
  const id = modelId('train-step');
  const batches = classifierBatches(data, BATCH, order);
  const runtime = wasmRuntime();
  const runner = new ProgramRunner({
    runtime,
    pool: new DeviceMemoryPool(1e9),
    models: [{ id, model: step.model, session: mlpTrainStepSession(step), residentBytes: 0 }],
  });
  const report = await runner.run(
    [
      {
        id: requestId('r'),
        program: {
          steps: [
            mlpTrainLoop({
              name: 'train',
              model: id,
              step,
              units: STEPS,
              batchSize: BATCH,
              hyperparameters: { lr: LR },
              initialWeights: initial(),
              batch: (i) => batches.batch(i),
            }),
          ],
        },
      },
    ],
    'serial',
  );
  await runner.close();
  const result = report.results[0]!;
  expect(result.status).toBe('ok');
  const weights = Object.fromEntries(
    initial().layout.map((slot) => [slot.name, result.outputs[`train.weights.${slot.name}`]]),
  );
  return { loss: result.metrics['train.loss'] ?? [], weights, live: runtime.liveDeviceTensors };
}

/** The same training as a bare loop that builds every feed afresh each step: new record, new arrays. */
async function freshFeeds(optimizer: MlpOptimizer) {
  const step = buildMlpTrainStep(spec, { optimizer, loss: 'softmax_cross_entropy' });
  const session = await ort.InferenceSession.create(step.model, { executionProviders: ['wasm'] });
  const batches = classifierBatches(data, BATCH, order);
  const start = initial();
  const scalar = (v: number) => new ort.Tensor('float32', Float32Array.of(v), []);
  let carried: Record<string, ort.Tensor> = {};
  for (const c of step.carried) {
    const w = start.values[c.weight]!;
    carried[c.input] = new ort.Tensor(
      'float32',
      c.role === 'weight' ? w.slice() : new Float32Array(w.length),
      [...c.dims],
    );
  }
  const loss: number[] = [];
  for (let i = 0; i < STEPS; i++) {
    const { x, y } = batches.batch(i);
    const feeds: Record<string, ort.Tensor> = {
      ...carried,
      [step.inputs.x]: new ort.Tensor('float32', x.data.slice(), [...x.dims]),
      [step.inputs.y]: new ort.Tensor('float32', y.data.slice(), [...y.dims]),
      [step.inputs.lr]: scalar(LR),
    };
    if (step.inputs.momentum !== null) feeds[step.inputs.momentum] = scalar(0.9);
    if (step.inputs.adam !== null) {
      feeds[step.inputs.adam.beta1] = scalar(0.9);
      feeds[step.inputs.adam.beta2] = scalar(0.999);
      feeds[step.inputs.adam.epsilon] = scalar(1e-8);
      feeds[step.inputs.adam.step] = scalar(i + 1);
    }
    const out = await session.run(feeds);
    loss.push((out[step.outputs.loss]!.data as Float32Array)[0]!);
    carried = Object.fromEntries(step.carried.map((c) => [c.input, out[c.output]!]));
  }
  await session.release();
  const weights = Object.fromEntries(
    step.carried
      .filter((c) => c.role === 'weight')
      .map((c) => [c.weight, carried[c.input]!.data as Float32Array]),
  );
  return { loss, weights };
}

describe('a training loop with one feed record, through OrtRuntime (wasm)', () => {
  for (const optimizer of ['momentum', 'adam'] as const)
    it(`gives the loss sequence and weights of fresh feeds every step, bit for bit (${optimizer})`, async () => {
      const reused = await throughRunner(optimizer);
      const fresh = await freshFeeds(optimizer);

      expect(reused.loss).toHaveLength(STEPS);
      expect(reused.loss.at(-1)).toBeLessThan(reused.loss[0]!);
      expect(reused.loss).toEqual(fresh.loss);
      for (const [name, want] of Object.entries(fresh.weights)) {
        const got = reused.weights[name] as Tensor | undefined;
        expect(got?.data, name).toEqual(want);
      }
      // Every step's carried outputs were disposed once the next step took them.
      expect(reused.live).toBe(0);
    });
});

describe('OrtRuntime feeds', () => {
  function reluModel(): Uint8Array {
    const g = new GraphBuilder('relu');
    const x = g.input('x', 'float32', [2]);
    g.output(g.op('Relu', [x]), 'y', 'float32', [2]);
    return g.toModel();
  }

  it('reads a CPU tensor fed again after its data was rewritten in place, or replaced', async () => {
    const session = await wasmRuntime().createSession(reluModel(), 'wasm');
    const x: Tensor = { type: 'float32', data: Float32Array.of(-1, 2), dims: [2] };
    const y = async () => [...((await session.run({ x })).y as Tensor).data];

    expect(await y()).toEqual([0, 2]);
    x.data.set([3, -4]);
    expect(await y()).toEqual([3, 0]);
    x.data = Float32Array.of(5, 6);
    expect(await y()).toEqual([5, 6]);
    await session.release();
  });

  it('refuses a device tensor fed after dispose(), on WASM as on WebGPU, naming it', async () => {
    const model = reluModel();
    const session = await wasmRuntime().createSession(model, 'wasm', { deviceOutputs: ['y'] });
    const { y } = await session.run({
      x: { type: 'float32', data: Float32Array.of(1, -1), dims: [2] },
    });
    expect(y).toMatchObject({ location: 'device', storage: 'cpu' });
    const kept = y as Exclude<typeof y, Tensor | undefined>;
    kept.dispose();
    await expect(session.run({ x: kept })).rejects.toThrow(
      'a device tensor [2] was fed after dispose()',
    );
    await session.release();
  });
});
