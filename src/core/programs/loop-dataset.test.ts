/**
 * A training loop's dataset in the device pool: reserved beside the weights
 * where the loop keeps it on the device (WebGPU, under the cap), not where
 * each step uploads its batch, and named when the budget is too small for it.
 */
import { describe, expect, it } from 'vitest';
import { buildMlpTrainStep } from '../onnx/mlp';
import type { AdapterInfo, Backend, TensorRuntime } from '../runtime/tensor-runtime';
import { loadsGatheringModel } from './loop-dataset';
import { mlpTrainStepModel } from './mlp-jobs';
import { mlpTrainLoop } from './mlp-steps';
import { DeviceMemoryPool, formatBytes, type PoolSnapshot } from './pool';
import type { LoopStep } from './program';
import { ProgramRunner, type TickReport } from './runner';
import { request } from './synthetic-programs';

const spec = { inputSize: 2, hidden: [3], outputSize: 2, activation: 'relu' } as const;
const options = { optimizer: 'momentum', loss: 'softmax_cross_entropy' } as const;
const step = buildMlpTrainStep(spec, options);
const gatheringStep = buildMlpTrainStep(spec, { ...options, residentRows: true });
const model = mlpTrainStepModel('train', step, 'auto', { loops: true, gatheringStep });
/** 1000 rows of 2 features and 2 one-hot classes, float32; batches of 10 rows. */
const ROWS = 1000;
const BATCH = 10;
const FEATURE_BYTES = ROWS * 2 * 4;
const DATASET_BYTES = 2 * FEATURE_BYTES + BATCH * 4;
const DATASET_LABEL = 'train: resident dataset (features, labels, row indices)';

const adapter: AdapterInfo = {
  vendor: 'test',
  architecture: 'gpu',
  isFallbackAdapter: false,
  limits: { maxBufferSize: 1024 ** 3, maxStorageBufferBindingSize: 128 * 1024 ** 2 },
};

/** A runtime on `backend` that runs device loops; its sessions run nothing. */
function runtimeOn(backend: Backend, residentDatasetBytes?: number): TensorRuntime {
  return {
    info: { backend, adapter: backend === 'webgpu' ? adapter : null },
    deviceLoops: true,
    ...(residentDatasetBytes !== undefined && { residentDatasetBytes }),
    createSession: () =>
      Promise.resolve({
        backend,
        inputNames: [],
        outputNames: [],
        run: () => Promise.reject(new Error('these tests run no step')),
        release: () => Promise.resolve(),
      }),
  };
}

/** The training loop, offering its dataset to stay on the device when `offered`. */
function trainLoop(offered: boolean): LoopStep {
  const x = new Float32Array(ROWS * 2);
  const y = new Float32Array(ROWS * 2);
  return mlpTrainLoop({
    name: 'train',
    model: model.id,
    step,
    units: 2,
    batchSize: BATCH,
    hyperparameters: { lr: 0.1 },
    initialWeights: 'start',
    batch: () => 'skip',
    batchesAhead: true,
    ...(offered && {
      resident: {
        step: gatheringStep,
        rows: {
          x: { type: 'float32', data: x, dims: [ROWS, 2] },
          y: { type: 'float32', data: y, dims: [ROWS, 2] },
          rows: () => 'skip',
        },
      },
    }),
  });
}

/** Runs `loop` (its units doing nothing) and gives the pool as the loop started. */
async function run(loop: LoopStep, runtime: TensorRuntime, budget = 1e9) {
  const pool = new DeviceMemoryPool(budget);
  const ticks: TickReport[] = [];
  let started: PoolSnapshot | null = null;
  const runner = new ProgramRunner({
    runtime,
    pool,
    models: [model],
    sleep: () => Promise.resolve(),
    onTick: (t) => ticks.push(t),
  });
  const watched: LoopStep = {
    ...loop,
    start() {
      started = pool.snapshot();
      return { unit: () => undefined };
    },
  };
  const report = await runner.run([request('train', [watched])], 'serial');
  await runner.close();
  return { result: report.results[0]!, started: started as PoolSnapshot | null, ticks };
}

const reservations = (pool: PoolSnapshot | null) =>
  pool?.holds.filter((h) => h.kind === 'state').map((h) => ({ label: h.label, bytes: h.bytes }));

describe("a training loop's dataset in the device pool", () => {
  it("is declared as its features, labels and one step's row indices, only when offered", () => {
    expect(trainLoop(true).dataset).toEqual({
      model: model.id,
      features: FEATURE_BYTES,
      labels: FEATURE_BYTES,
      rows: BATCH * 4,
    });
    expect(trainLoop(false).dataset).toBeUndefined();
  });

  it('is reserved beside the weights where it stays on the device, and nowhere else', async () => {
    const loop = trainLoop(true);
    const weights = { label: 'train: weights and optimizer state', bytes: loop.residentBytes };
    const onGpu = await run(loop, runtimeOn('webgpu'));
    expect(onGpu.result.status).toBe('ok');
    expect(reservations(onGpu.started)).toEqual([
      weights,
      { label: DATASET_LABEL, bytes: DATASET_BYTES },
    ]);
    // Each step uploads its batch: on WASM, over the cap, or when the loop offers no dataset.
    const elsewhere = [
      await run(loop, runtimeOn('wasm')),
      await run(loop, runtimeOn('webgpu', 2 * FEATURE_BYTES - 1)),
      await run(trainLoop(false), runtimeOn('webgpu')),
    ];
    for (const { result, started } of elsewhere) {
      expect(result.status).toBe('ok');
      expect(reservations(started)).toEqual([weights]);
    }
  });

  it('is read where it lies, and reserved nowhere, by a loop beside the engine that gathers there', async () => {
    const host: TensorRuntime = { ...runtimeOn('wasm'), hostLoopsGather: true };
    expect(loadsGatheringModel(model, host)).toBe(true);
    // Not where the runtime's loops copy batches, nor for a session that runs no loop.
    expect(loadsGatheringModel(model, runtimeOn('wasm'))).toBe(false);
    const unlooped = { ...model, session: { ...model.session, loops: false } };
    expect(loadsGatheringModel(unlooped, host)).toBe(false);
    const loop = trainLoop(true);
    const { result, started } = await run(loop, host);
    expect(result.status).toBe('ok');
    expect(reservations(started)).toEqual([
      { label: 'train: weights and optimizer state', bytes: loop.residentBytes },
    ]);
  });

  it('fails a budget too small only because of it, with the numbers and its share', async () => {
    const loop = trainLoop(true);
    const { peakBytes: peak, residentBytes: state } = loop;
    const models = model.residentBytes;
    const budget = peak + state + models + DATASET_BYTES - 1;
    // Without the dataset on the device, the same budget trains.
    expect((await run(loop, runtimeOn('wasm'), budget)).result.status).toBe('ok');
    const { result, started } = await run(loop, runtimeOn('webgpu'), budget);
    expect(started).toBeNull();
    const parts = [
      `${formatBytes(peak)} peak`,
      `${formatBytes(state)} resident (weights, optimizer state)`,
      `${formatBytes(DATASET_BYTES)} resident dataset (features, labels, row indices)`,
      ...(models > 0 ? [`${formatBytes(models)} of resident models`] : []),
    ];
    expect(result.error).toEqual({
      code: 'infeasible',
      message:
        `train: step needs ${parts.join(' + ')} = ${formatBytes(budget + 1)}, ` +
        `pool is ${formatBytes(budget)}`,
    });
  });

  it('is named in what a loop waits for while others hold the bytes', async () => {
    const loop = trainLoop(true);
    const pool = new DeviceMemoryPool(1e9);
    // Room for the weights and a step's peak, not for the dataset beside them.
    const free = DATASET_BYTES / 2;
    expect(loop.residentBytes + loop.peakBytes + model.residentBytes).toBeLessThan(free);
    const other = pool.tryHold({ name: 'another run' }, 'state', 1e9 - free, 'its loop');
    const ticks: TickReport[] = [];
    const runner = new ProgramRunner({
      runtime: runtimeOn('webgpu'),
      pool,
      models: [model],
      sleep: () => Promise.resolve(),
      onTick: (t) => {
        ticks.push(t);
        if (t.tick === 1 && other !== null) pool.release(other);
      },
    });
    const watched: LoopStep = { ...loop, start: () => ({ unit: () => undefined }) };
    const report = await runner.run([request('train', [watched])], 'serial');
    await runner.close();
    expect(report.results[0]?.status).toBe('ok');
    expect(ticks[0]?.pool.waiting[0]?.label).toContain(
      `${formatBytes(DATASET_BYTES)} resident dataset (features, labels, row indices)`,
    );
  });
});
