import * as ort from 'onnxruntime-web';
import { describe, expect, it } from 'vitest';
import {
  hostDeviceTensor,
  isDeviceTensor,
  readTensor,
  type DeviceTensor,
  type Fetched,
  type Tensor,
  type TensorRuntime,
} from '../runtime/tensor-runtime.ts';
import { estimateMemory } from '../onnx/memory.ts';
import {
  buildMlpInference,
  buildMlpTrainStep,
  initMlpWeights,
  type MlpOptimizer,
  type MlpSpec,
} from '../onnx/mlp.ts';
import { createRandom } from '../random.ts';
import {
  mlpEvaluateStep,
  mlpTrainLoop,
  mlpTrainStepSession,
  outputWeights,
  type MlpBatch,
} from './mlp-steps.ts';
import { parityCheck } from './parity.ts';
import { DeviceMemoryPool, formatBytes } from './pool.ts';
import {
  component,
  loop,
  modelId,
  requestId,
  type ModelDef,
  type ProgramRequest,
} from './program.ts';
import { ProgramRunner } from './runner.ts';

/**
 * onnxruntime-web's WASM backend behind the engine's seam, counting sessions.
 * Outputs named in `deviceOutputs` come back as device tensors that count
 * themselves live until disposed, as GPU buffers would be on WebGPU.
 */
function ortRuntime() {
  const sessions = { created: 0, released: 0, liveDeviceTensors: 0, deviceFeeds: 0 };
  const runtime: TensorRuntime = {
    info: { backend: 'wasm', adapter: null },
    async createSession(model, _backend, options) {
      const session = await ort.InferenceSession.create(model);
      const deviceOutputs = new Set(options?.deviceOutputs ?? []);
      sessions.created++;
      return {
        backend: 'wasm',
        inputNames: session.inputNames,
        outputNames: session.outputNames,
        async run(feeds) {
          const input: Record<string, ort.Tensor> = {};
          for (const [name, feed] of Object.entries(feeds)) {
            if (isDeviceTensor(feed)) sessions.deviceFeeds++;
            const t = await readTensor(feed);
            input[name] = new ort.Tensor(t.type, t.data, t.dims);
          }
          const out = await session.run(input);
          const result: Record<string, Fetched> = {};
          for (const [name, t] of Object.entries(out)) {
            const tensor: Tensor = {
              type: t.type === 'int32' ? 'int32' : 'float32',
              data: t.data as Float32Array,
              dims: [...t.dims],
            };
            result[name] = deviceOutputs.has(name) ? counted(tensor) : tensor;
          }
          return result;
        },
        async release() {
          sessions.released++;
          await session.release();
        },
      };
    },
  };
  const counted = (tensor: Tensor): DeviceTensor => {
    sessions.liveDeviceTensors++;
    let disposed = false;
    return {
      ...hostDeviceTensor(tensor),
      dispose: () => {
        if (!disposed) sessions.liveDeviceTensors--;
        disposed = true;
      },
    };
  };
  return { runtime, sessions };
}

const spec: MlpSpec = { inputSize: 2, hidden: [8], outputSize: 2, activation: 'gelu' };
const steps = {
  momentum: buildMlpTrainStep(spec, { optimizer: 'momentum', loss: 'softmax_cross_entropy' }),
  adam: buildMlpTrainStep(spec, { optimizer: 'adam', loss: 'softmax_cross_entropy' }),
};
const inference = buildMlpInference(spec);
const ids = {
  momentum: modelId('train-momentum'),
  adam: modelId('train-adam'),
  infer: modelId('infer'),
};
const defs: ModelDef[] = [
  {
    id: ids.momentum,
    model: steps.momentum.model,
    session: mlpTrainStepSession(steps.momentum),
    residentBytes: estimateMemory(steps.momentum.graph, { dims: { batch: 1 } }).constantBytes,
  },
  {
    id: ids.adam,
    model: steps.adam.model,
    session: mlpTrainStepSession(steps.adam),
    residentBytes: estimateMemory(steps.adam.graph, { dims: { batch: 1 } }).constantBytes,
  },
  {
    id: ids.infer,
    model: inference.model,
    residentBytes: estimateMemory(inference.graph, { dims: { batch: 1 } }).constantBytes,
  },
];

/** `n` points in [-1, 1]² labelled by a line: features and one-hot targets. */
function separable(n: number, seed: number) {
  const random = createRandom(seed);
  const x = new Float32Array(n * 2);
  const y = new Float32Array(n * 2);
  const labels: number[] = [];
  for (let i = 0; i < n; i++) {
    const a = 2 * random() - 1;
    const b = 2 * random() - 1;
    const label = a - 0.5 * b > 0.1 ? 1 : 0;
    x.set([a, b], i * 2);
    y[i * 2 + label] = 1;
    labels.push(label);
  }
  return { x, y, labels };
}

const BATCH = 32;
const evalSet = separable(200, 99);

/** init → train (K units, one batch each) → eval, for one request. */
function trainingRequest(
  id: string,
  seed: number,
  optimizer: 'momentum' | 'adam',
  o: { units?: number; log?: string[]; badBatchAt?: number; evalRows?: number } = {},
): ProgramRequest {
  const data = separable(3 * BATCH, seed);
  const slice = (from: Float32Array, i: number) =>
    from.slice((i % 3) * BATCH * 2, ((i % 3) + 1) * BATCH * 2);
  return {
    id: requestId(id),
    program: {
      steps: [
        component({
          name: 'init',
          run: (ctx) => outputWeights(ctx, 'init', initMlpWeights(spec, createRandom(seed))),
        }),
        mlpTrainLoop({
          name: 'train',
          model: ids[optimizer],
          step: steps[optimizer],
          units: o.units ?? 15,
          batchSize: BATCH,
          hyperparameters: { lr: optimizer === 'adam' ? 0.05 : 0.3 },
          initialWeights: 'init',
          batch: (i) => {
            o.log?.push(`${id}:${i}`);
            const y: Tensor = { type: 'float32', data: slice(data.y, i), dims: [BATCH, 2] };
            // A batch with 3 features where the model takes 2: onnxruntime refuses it.
            if (i === o.badBatchAt)
              return {
                x: { type: 'float32', data: new Float32Array(BATCH * 3), dims: [BATCH, 3] },
                y,
              };
            return { x: { type: 'float32', data: slice(data.x, i), dims: [BATCH, 2] }, y };
          },
        }),
        mlpEvaluateStep({
          name: 'eval',
          model: ids.infer,
          inference,
          weights: 'train.weights',
          x: {
            type: 'float32',
            data: evalSet.x.subarray(0, 2 * (o.evalRows ?? 200)),
            dims: [o.evalRows ?? 200, 2],
          },
          labels: evalSet.labels.slice(0, o.evalRows ?? 200),
        }),
      ],
    },
  };
}

const immediately = () => Promise.resolve();

describe('ProgramRunner over onnxruntime-web (wasm)', () => {
  it('serial and interleaved give bit-identical outputs and metrics for 4 concurrent requests', async () => {
    const { runtime, sessions } = ortRuntime();
    const pool = new DeviceMemoryPool(64e6);
    const runner = new ProgramRunner({ runtime, pool, models: defs, sleep: immediately });
    const log: string[] = [];
    const optimizers: MlpOptimizer[] = ['momentum', 'adam', 'momentum', 'adam'];
    const requests = optimizers.map((opt, k) =>
      trainingRequest(`r${k + 1}`, k + 1, opt as 'momentum' | 'adam', { log }),
    );
    const report = await parityCheck(runner, requests);

    const differing = report.entries.filter((e) => !e.identical);
    expect(differing).toEqual([]);
    expect(report.identical).toBe(true);
    // Per request: status, 4 init + 4 trained weights + probabilities, right rows,
    // device- and GPU-fed units, loss and accuracy.
    expect(report.entries).toHaveLength(4 * 15);
    // The two runs really were scheduled differently.
    const units = (id: string) => Array.from({ length: 15 }, (_, i) => `${id}:${i}`);
    expect(log.slice(0, 60)).toEqual(['r1', 'r2', 'r3', 'r4'].flatMap(units));
    expect(log.slice(60, 64)).toEqual(['r1:0', 'r2:0', 'r3:0', 'r4:0']);
    expect(report.serial.ticks).toBe(4 * 17);
    expect(report.interleaved.ticks).toBe(17);
    for (const result of report.interleaved.results) {
      expect(result.status).toBe('ok');
      const loss = result.metrics['train.loss'] ?? [];
      expect(loss).toHaveLength(15);
      expect(loss[14]).toBeLessThan(0.6 * (loss[0] ?? 0));
      expect(result.metrics['eval.accuracy']?.[0]).toBeGreaterThan(0.85);
    }
    // Units 2…15 were fed the weights the unit before left on the device; none is left there.
    for (const result of report.interleaved.results) {
      expect(result.outputs['train.deviceFedUnits']).toBe(14);
      expect(result.outputs['train.gpuFedUnits']).toBe(0);
    }
    expect(sessions.liveDeviceTensors).toBe(0);
    // Requests are independent: same optimizer, other seed, other weights.
    const w = (k: number) => report.interleaved.results[k]?.outputs['train.weights.W0'];
    expect(w(0)).not.toEqual(w(2));
    // One session per model, shared by every request of both runs, released on close.
    expect(sessions.created).toBe(3);
    expect(
      pool
        .snapshot()
        .residentModels.map((m) => m.name)
        .sort(),
    ).toEqual(['infer', 'train-adam', 'train-momentum']);
    await runner.close();
    expect(sessions.released).toBe(3);
    expect(pool.used).toBe(0);
  });

  it('fails a training step that can never fit at once, with its estimated numbers', async () => {
    const { runtime, sessions } = ortRuntime();
    const big: MlpSpec = { inputSize: 784, hidden: [256], outputSize: 10, activation: 'relu' };
    const step = buildMlpTrainStep(big, { optimizer: 'adam', loss: 'softmax_cross_entropy' });
    const def: ModelDef = { id: modelId('big'), model: step.model, residentBytes: 0 };
    const runner = new ProgramRunner({ runtime, pool: new DeviceMemoryPool(16e6), models: [def] });
    const train = mlpTrainLoop({
      name: 'train',
      model: def.id,
      step,
      units: 10,
      batchSize: 4096,
      hyperparameters: { lr: 0.01 },
      initialWeights: initMlpWeights(big, createRandom(0)),
      batch: () => {
        throw new Error('never reached');
      },
    });
    const m = estimateMemory(step.graph, {
      dims: { batch: 4096 },
      resident: step.carried.map((c) => c.input),
    });
    const [result] = (
      await runner.run([{ id: requestId('r'), program: { steps: [train] } }], 'serial')
    ).results;
    expect(result?.error).toEqual({
      code: 'infeasible',
      message:
        `train: step needs ${formatBytes(m.peakBytes)} peak + ${formatBytes(m.residentBytes)} resident ` +
        `(weights, optimizer state) = ${formatBytes(m.peakBytes + m.residentBytes)}, pool is 16 MB`,
    });
    expect(train.peakBytes).toBeGreaterThan(16e6);
    expect(sessions.created).toBe(0);
  });

  it('defers a training request that does not fit beside another, then completes it identically', async () => {
    const { runtime } = ortRuntime();
    const train = mlpTrainLoop({
      name: 'probe',
      model: ids.momentum,
      step: steps.momentum,
      units: 1,
      batchSize: BATCH,
      hyperparameters: { lr: 0 },
      initialWeights: 'x',
      batch: () => {
        throw new Error('unused');
      },
    });
    const models = defs.reduce((s, d) => s + d.residentBytes, 0);
    // Room for the models and one momentum loop with its peak; not for a second loop's state.
    const budget = models + train.residentBytes + train.peakBytes + train.residentBytes / 2;
    const pool = new DeviceMemoryPool(budget);
    const waited: string[] = [];
    const runner = new ProgramRunner({
      runtime,
      pool,
      models: defs,
      sleep: immediately,
      onTick: (t) => waited.push(...t.pool.waiting.map((w) => `${w.holder}: ${w.label}`)),
    });
    const log: string[] = [];
    const requests = [1, 2].map((k) =>
      trainingRequest(`r${k}`, k, 'momentum', { log, units: 4, evalRows: 4 }),
    );
    const report = await parityCheck(runner, requests);
    expect(report.entries.filter((e) => !e.identical)).toEqual([]);
    expect(report.interleaved.results.map((r) => r.error)).toEqual([null, null]);
    expect(budget).toBeLessThan(models + 2 * train.residentBytes + train.peakBytes);
    expect(waited.some((w) => w.startsWith('r2: train: needs'))).toBe(true);
    // Interleaved, r2 trained only after r1 let go of its state.
    expect(log.slice(8)).toEqual(['r1:0', 'r1:1', 'r1:2', 'r1:3', 'r2:0', 'r2:1', 'r2:2', 'r2:3']);
    await runner.close();
    expect(pool.used).toBe(0);
  });

  it('fails, rather than waits, when resident models leave a step too little ever to fit', async () => {
    const { runtime } = ortRuntime();
    const a: ModelDef = { id: modelId('a'), model: inference.model, residentBytes: 600 };
    const b: ModelDef = { id: modelId('b'), model: inference.model, residentBytes: 100 };
    const pool = new DeviceMemoryPool(1000);
    const runner = new ProgramRunner({ runtime, pool, models: [a, b], sleep: immediately });
    const report = await runner.run(
      [
        {
          id: requestId('r1'),
          program: { steps: [component({ name: 'use a', models: [a.id], run: () => {} })] },
        },
        {
          id: requestId('r2'),
          program: {
            steps: [
              loop({
                name: 'train',
                models: [b.id],
                units: 2,
                residentBytes: 200,
                peakBytes: 150,
                start: () => ({ unit: () => {} }),
              }),
            ],
          },
        },
      ],
      'interleaved',
    );
    expect(report.results[0]?.status).toBe('ok');
    expect(report.results[1]?.error).toEqual({
      code: 'infeasible',
      message:
        'train: needs 100 B model b + 200 B weights and optimizer state + 150 B step peak = 450 B, ' +
        'but at most 400 B of the 1 KB pool can ever be free to it ' +
        '(600 B held by resident models, 0 B by r2 itself)',
    });
    expect(pool.snapshot()).toMatchObject({ models: 600, reserved: 0, inUse: 0 });
    await runner.close();
    expect(pool.used).toBe(0);
  });

  it('fails a step on an onnxruntime error with the step, unit and backend, and goes on', async () => {
    const { runtime, sessions } = ortRuntime();
    const pool = new DeviceMemoryPool(64e6);
    const runner = new ProgramRunner({ runtime, pool, models: defs, sleep: immediately });
    const report = await runner.run(
      [
        trainingRequest('bad', 1, 'adam', { units: 5, badBatchAt: 2 }),
        trainingRequest('good', 2, 'adam', { units: 5 }),
      ],
      'interleaved',
    );
    const [bad, good] = report.results;
    expect(bad?.status).toBe('error');
    expect(bad?.error?.code).toBe('step-failed');
    expect(bad?.error?.message).toMatch(/^train \(unit 3 of 5\) on wasm: .*x/);
    expect(bad?.metrics['train.loss']).toHaveLength(2);
    expect(good?.status).toBe('ok');
    expect(pool.snapshot()).toMatchObject({ reserved: 0, inUse: 0 });
    // The failed loop's device tensors were disposed on its way out, like the finished one's.
    expect(sessions.deviceFeeds).toBeGreaterThan(0);
    expect(sessions.liveDeviceTensors).toBe(0);
    await runner.close();
  });

  it('disposes the device tensors of a loop cancelled between units', async () => {
    const { runtime, sessions } = ortRuntime();
    const pool = new DeviceMemoryPool(64e6);
    const runner = new ProgramRunner({ runtime, pool, models: defs, sleep: immediately });
    const abort = new AbortController();
    const request = trainingRequest('r', 1, 'adam', { units: 10 });
    const steps = request.program.steps;
    const train = steps[1];
    if (train?.kind !== 'loop') throw new Error('expected the train loop');
    const cancelling: typeof train = {
      ...train,
      start: async (ctx) => {
        const body = await train.start(ctx);
        return {
          ...body,
          unit: async (i) => {
            await body.unit(i);
            if (i === 3) abort.abort();
          },
        };
      },
    };
    const report = await runner.run(
      [{ ...request, signal: abort.signal, program: { steps: [steps[0]!, cancelling] } }],
      'serial',
    );
    expect(report.results[0]?.status).toBe('cancelled');
    expect(report.results[0]?.metrics['train.loss']).toHaveLength(4);
    expect(sessions.liveDeviceTensors).toBe(0);
    await runner.close();
    expect(pool.used).toBe(0);
  });

  it('a skipped unit is no training step, and `end` stops the loop early with the weights so far', async () => {
    const { runtime } = ortRuntime();
    const pool = new DeviceMemoryPool(64e6);
    const runner = new ProgramRunner({ runtime, pool, models: defs, sleep: immediately });
    const data = separable(2 * BATCH, 7);
    const batch = (i: number): MlpBatch => ({
      x: {
        type: 'float32',
        data: data.x.slice(i * BATCH * 2, (i + 1) * BATCH * 2),
        dims: [BATCH, 2],
      },
      y: {
        type: 'float32',
        data: data.y.slice(i * BATCH * 2, (i + 1) * BATCH * 2),
        dims: [BATCH, 2],
      },
    });
    const asked: number[] = [];
    // Adam counts its steps: a skipped unit must not count as one.
    const training = (units: number, batches: readonly MlpBatch[]): ProgramRequest => ({
      id: requestId(`r${units}`),
      program: {
        steps: [
          mlpTrainLoop({
            name: 'train',
            model: ids.adam,
            step: steps.adam,
            units,
            batchSize: BATCH,
            hyperparameters: { lr: 0.05 },
            initialWeights: initMlpWeights(spec, createRandom(3)),
            batch: (i) => {
              if (units === 10) asked.push(i);
              return Promise.resolve(batches[i]!);
            },
          }),
        ],
      },
    });
    const report = await runner.run(
      [
        training(10, ['skip', batch(0), 'skip', batch(1), 'end']),
        training(2, [batch(0), batch(1)]),
      ],
      'interleaved',
    );
    const [gappy, plain] = report.results;
    expect(gappy?.status).toBe('ok');
    expect(asked).toEqual([0, 1, 2, 3, 4]);
    expect(gappy?.metrics['train.loss']).toHaveLength(2);
    expect(gappy?.metrics).toEqual(plain?.metrics);
    for (const name of ['W0', 'b0', 'W1', 'b1'])
      expect(gappy?.outputs[`train.weights.${name}`], name).toEqual(
        plain?.outputs[`train.weights.${name}`],
      );
    await runner.close();
    expect(pool.used).toBe(0);
  });
});
