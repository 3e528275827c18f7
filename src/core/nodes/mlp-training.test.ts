/**
 * A trained model keeps its optimizer's state, and a second training fed it
 * goes on from it, through the engine's executor on onnxruntime-web (WASM):
 * a `train.classifier` fed the first one's model steps exactly as the train
 * step called by hand from the carried weights and state on the same
 * batches; another optimizer starts from zero and says so; the node-output
 * cache gives the trained model back with its state bit for bit, so a run
 * that takes the first training from the cache trains the second as a cold
 * run does.
 */
import { describe, expect, it } from 'vitest';
import { memoryCacheStore } from '../cache';
import { decodeValue, encodeValue } from '../cache/value-bytes';
import { valueDigest } from '../cache/value-digest';
import { standardiseForTraining } from '../catalog/standardise';
import type { Dataset, TrainedModel } from '../catalog/values';
import { flowDocumentSchema, type FlowDocument } from '../flow/document';
import { buildBlockTrainStep } from '../onnx/model-blocks';
import type { MlpOptimizer, OptimizerState } from '../onnx/mlp';
import { get, open, stepFeeds, tensor, wasmRuntime, type Arrays } from '../onnx/testing';
import { createRandom } from '../random';
import { classifierBatches } from './classifier-batches';
import { batchDims, blockFor } from './model-fit';
import { runFlow } from './testing';

const STEPS = 6;
const BATCH = 16;
const LR = 0.1;
const SEED = 2;

/** Rows, an MLP, and two trainings in a row: `second` is fed `first`'s model. */
function chain(second: Record<string, number | string> = {}): FlowDocument {
  const training = {
    steps: STEPS,
    batch_size: BATCH,
    lr: LR,
    momentum: 0.9,
    log_every: 1,
    seed: SEED,
    backend: 'wasm',
  };
  const at = { x: 0, y: 0 };
  return flowDocumentSchema.parse({
    format: 'flowbench.flow/1',
    name: 'two trainings in a row',
    inputs: [],
    outputs: [],
    nodes: [
      {
        id: 'data',
        kind: 'data.synthetic',
        params: { shape: 'moons', n: 96, classes: 2, noise: 0.1, seed: 1 },
        position: at,
      },
      {
        id: 'model',
        kind: 'model.mlp',
        params: { hidden: 6, layers: 1, activation: 'tanh' },
        position: at,
      },
      { id: 'first', kind: 'train.classifier', params: training, position: at },
      { id: 'second', kind: 'train.classifier', params: { ...training, ...second }, position: at },
    ],
    edges: [
      { from: 'data.dataset', to: 'first.dataset' },
      { from: 'model.model', to: 'first.model' },
      { from: 'data.dataset', to: 'second.dataset' },
      { from: 'first.model', to: 'second.model' },
    ],
  });
}

/** Runs `flow`, which must end well, keeping every value emitted. */
async function run(flow: FlowDocument, cache?: Parameters<typeof runFlow>[1]['cache']) {
  const values = new Map<string, unknown>();
  const report = await runFlow(flow, {
    runtime: wasmRuntime,
    onEmit: (port, value) => values.set(port, value),
    ...(cache && { cache }),
  });
  expect(report.result.status).toBe('ok');
  return { report, values, model: (node: string) => values.get(`${node}.model`) as TrainedModel };
}

/**
 * `STEPS` train steps called by hand on onnxruntime from `model`'s weights
 * and `state` (zeros when absent), on the batches a training with `SEED`
 * fed a trained model draws: each step's loss, and the carried tensors at
 * the end by input name.
 */
async function byHand(
  optimizer: MlpOptimizer,
  data: Dataset,
  model: TrainedModel,
  state: OptimizerState | undefined,
): Promise<{ losses: number[]; carried: Arrays }> {
  const spec = blockFor(model, data, 'dataset');
  const step = buildBlockTrainStep(spec, { optimizer, loss: 'softmax_cross_entropy' });
  const session = await open(step.model);
  // A trained model draws no weights: its batch order starts at the seed.
  const batches = classifierBatches(
    data,
    BATCH,
    () => createRandom(SEED),
    batchDims(spec, 1).slice(1),
  );
  let carried: Arrays = Object.fromEntries(
    step.carried.map((c) => {
      const weight = get(model.weights.values, c.weight);
      if (c.role === 'weight') return [c.input, weight];
      return [c.input, state ? get(state.tensors, c.input) : new Float32Array(weight.length)];
    }),
  );
  const losses: number[] = [];
  for (let t = 1; t <= STEPS; t++) {
    const batch = batches.batch(t - 1);
    if (typeof batch === 'string') throw new Error(`no batch ${t - 1}`);
    const out = await session({
      [step.inputs.x]: tensor(batch.x.data as Float32Array, batch.x.dims),
      [step.inputs.y]: tensor(batch.y.data as Float32Array, batch.y.dims),
      ...stepFeeds(step, carried, LR, (state?.steps ?? 0) + t),
    });
    losses.push(get(out, step.outputs.loss)[0]!);
    carried = Object.fromEntries(step.carried.map((c) => [c.input, get(out, c.output)]));
  }
  return { losses, carried };
}

const bits = (values: Readonly<Record<string, Float32Array>>) =>
  Object.fromEntries(
    Object.entries(values).map(([k, v]) => [k, new Uint32Array(v.slice().buffer)]),
  );

/** The carried tensors of `model` (weights and optimizer state) by train-step input name. */
const carriedOf = (model: TrainedModel): Arrays => ({
  ...model.weights.values,
  ...model.optimizerState?.tensors,
});

describe('training a trained model', () => {
  it('the trained model keeps its momentum state, shaped like its weights', async () => {
    const { model } = await run(chain());
    const first = model('first');
    expect(first.optimizerState?.optimizer).toBe('momentum');
    expect(first.optimizerState?.steps).toBe(STEPS);
    const tensors = first.optimizerState!.tensors;
    expect(Object.keys(tensors).sort()).toEqual(
      first.weights.layout.map((s) => `velocity.${s.name}`).sort(),
    );
    for (const slot of first.weights.layout)
      expect(tensors[`velocity.${slot.name}`]).toHaveLength(
        first.weights.values[slot.name]!.length,
      );
    expect(model('second').optimizerState?.steps).toBe(2 * STEPS);
  }, 60_000);

  it('resumes the momentum state it is fed: the steps the train step takes from it by hand', async () => {
    const { report, values, model } = await run(chain());
    expect(report.logs.get('second')).toContain(
      `resumed momentum state from the input model (${STEPS} steps before)`,
    );
    expect(report.logs.get('first')!.some((l) => l.includes('state'))).toBe(false);
    const data = standardiseForTraining(values.get('data.dataset') as Dataset);
    const first = model('first');
    const resumed = await byHand('momentum', data, first, first.optimizerState);
    // Every step's loss, the weights and the velocity at the end, bit for bit.
    expect(report.metrics.get('second.loss')).toEqual(resumed.losses);
    expect(bits(carriedOf(model('second')))).toEqual(bits(resumed.carried));
    // Restarting the velocity from zero (as before the state was kept) steps elsewhere.
    const restarted = await byHand('momentum', data, first, undefined);
    expect(restarted.losses[0]).toBe(resumed.losses[0]);
    expect(restarted.losses.slice(1)).not.toEqual(resumed.losses.slice(1));
  }, 60_000);

  it('starts another optimizer from zero, saying why: the steps Adam takes from zeros by hand', async () => {
    const { report, values, model } = await run(chain({ optimizer: 'adam' }));
    expect(report.logs.get('second')).toContain(
      "adam state starts at zero: the input model's state is momentum's",
    );
    const second = model('second');
    expect(second.optimizerState?.optimizer).toBe('adam');
    expect(second.optimizerState?.steps).toBe(STEPS);
    const data = standardiseForTraining(values.get('data.dataset') as Dataset);
    const fresh = await byHand('adam', data, model('first'), undefined);
    expect(report.metrics.get('second.loss')).toEqual(fresh.losses);
    expect(bits(carriedOf(second))).toEqual(bits(fresh.carried));
  }, 60_000);
});

describe('a trained model in the node-output cache', () => {
  it('comes back with its optimizer state bit for bit', async () => {
    const { model } = await run(chain());
    const first = model('first');
    const back = decodeValue(encodeValue(first)!) as TrainedModel;
    expect(back.optimizerState?.optimizer).toBe('momentum');
    expect(back.optimizerState?.steps).toBe(STEPS);
    expect(bits(back.optimizerState!.tensors)).toEqual(bits(first.optimizerState!.tensors));
    expect(await valueDigest(back)).toBe(await valueDigest(first));
    // The state is part of the value: a model without it is another value (another cache key below).
    const { optimizerState: _state, ...bare } = first;
    expect(await valueDigest(bare)).not.toBe(await valueDigest(first));
  }, 60_000);

  it('a run that takes the first training from the cache trains the second as a cold run', async () => {
    const store = memoryCacheStore();
    await run(chain(), { store, runId: 'run-1' });
    const changed = chain({ lr: 0.05 });
    const warm = await run(changed, { store, runId: 'run-2' });
    expect(warm.report.outcomes.get('first')?.status).toBe('cached');
    expect(warm.report.outcomes.get('second')?.status).toBe('ok');
    expect(warm.report.logs.get('second')).toContain(
      `resumed momentum state from the input model (${STEPS} steps before)`,
    );
    const cold = await run(changed);
    expect(warm.report.metrics.get('second.loss')).toEqual(cold.report.metrics.get('second.loss'));
    expect(bits(carriedOf(warm.model('second')))).toEqual(bits(carriedOf(cold.model('second'))));
  }, 60_000);
});
