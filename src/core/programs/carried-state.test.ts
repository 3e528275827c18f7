/**
 * A train loop's optimizer state at its ends, on the real onnxruntime
 * (WASM): a loop of 2N steps and two loops of N, the second started from the
 * first's weights and optimizer state, train bit for bit alike — losses,
 * weights, state and step count — for momentum and for Adam (whose step
 * counter goes on); started from zeros instead, the second loop drifts off.
 */
import { describe, expect, it } from 'vitest';
import {
  buildMlpTrainStep,
  initMlpWeights,
  type MlpOptimizer,
  type MlpSpec,
  type MlpWeights,
  type OptimizerState,
} from '../onnx/mlp';
import { wasmRuntime } from '../onnx/testing';
import { createRandom } from '../random';
import { trainedOptimizerState } from './carried-state';
import { mlpTrainLoop, mlpTrainStepSession, trainedWeights, type MlpBatch } from './mlp-steps';
import { DeviceMemoryPool } from './pool';
import { modelId, requestId, type ModelDef } from './program';
import { ProgramRunner } from './runner';

const spec: MlpSpec = { inputSize: 2, hidden: [6], outputSize: 2, activation: 'tanh' };
const ROWS = 8;
const STATE = 'train.state';

/** Unit `i`'s batch: a function of `i` alone, so a later loop can be handed the same batches. */
function batchOf(i: number): MlpBatch {
  const random = createRandom(1000 + i);
  const x = Float32Array.from({ length: ROWS * 2 }, () => random() * 2 - 1);
  const y = new Float32Array(ROWS * 2);
  for (let r = 0; r < ROWS; r++) y[r * 2 + (x[r * 2]! * x[r * 2 + 1]! > 0 ? 1 : 0)] = 1;
  return {
    x: { type: 'float32', data: x, dims: [ROWS, 2] },
    y: { type: 'float32', data: y, dims: [ROWS, 2] },
  };
}

interface Trained {
  readonly losses: number[];
  readonly weights: MlpWeights;
  readonly state: OptimizerState;
}

/** `units` steps from `weights` (and `state`, else zeros), on the batches from unit `from` on. */
async function trainLoop(
  optimizer: MlpOptimizer,
  weights: MlpWeights,
  units: number,
  from: number,
  state?: OptimizerState,
): Promise<Trained> {
  const step = buildMlpTrainStep(spec, { optimizer, loss: 'softmax_cross_entropy' });
  const def: ModelDef = {
    id: modelId('step'),
    model: step.model,
    session: mlpTrainStepSession(step),
    residentBytes: 0,
  };
  const losses: number[] = [];
  const runner = new ProgramRunner({
    runtime: wasmRuntime,
    pool: new DeviceMemoryPool(1e9),
    models: [def],
    onEmit: (_request, _metric, value) => void losses.push(value),
  });
  const loop = mlpTrainLoop({
    name: 'train',
    model: def.id,
    step,
    units,
    batchSize: ROWS,
    hyperparameters: { lr: 0.05 },
    initialWeights: weights,
    ...(state && { initialState: state }),
    stateOutput: STATE,
    batch: (i) => batchOf(from + i),
  });
  const report = await runner.run([{ id: requestId('r'), program: { steps: [loop] } }], 'serial');
  await runner.close();
  const result = report.results[0]!;
  expect(result.error).toBeNull();
  return {
    losses,
    weights: trainedWeights(result.outputs, 'train.weights', weights),
    state: trainedOptimizerState(result.outputs, STATE, optimizer, weights.layout),
  };
}

const bits = (values: Readonly<Record<string, Float32Array>>) =>
  Object.fromEntries(
    Object.entries(values).map(([k, v]) => [k, new Uint32Array(v.slice().buffer)]),
  );

describe("a train loop's optimizer state", () => {
  it.each<MlpOptimizer>(['momentum', 'adam'])(
    '%s: two loops of N, the second resuming the first, train as one loop of 2N',
    async (optimizer) => {
      const start = initMlpWeights(spec, createRandom(3));
      const whole = await trainLoop(optimizer, start, 8, 0);
      const first = await trainLoop(optimizer, start, 4, 0);
      const second = await trainLoop(optimizer, first.weights, 4, 4, first.state);
      expect(first.state.optimizer).toBe(optimizer);
      expect(first.state.steps).toBe(4);
      // Each state tensor is shaped like its weight: one per weight (momentum), two (Adam).
      const perWeight = optimizer === 'adam' ? 2 : 1;
      expect(Object.keys(first.state.tensors)).toHaveLength(perWeight * start.layout.length);
      for (const slot of start.layout) {
        const prefixes = optimizer === 'adam' ? ['m.', 'v.'] : ['velocity.'];
        for (const p of prefixes)
          expect(first.state.tensors[`${p}${slot.name}`]).toHaveLength(
            start.values[slot.name]!.length,
          );
      }
      expect([...first.losses, ...second.losses]).toEqual(whole.losses);
      expect(bits(second.weights.values)).toEqual(bits(whole.weights.values));
      expect(bits(second.state.tensors)).toEqual(bits(whole.state.tensors));
      expect(second.state.steps).toBe(8);
      // From zeros instead, the second loop is not the continuation.
      const fresh = await trainLoop(optimizer, first.weights, 4, 4);
      expect(fresh.state.steps).toBe(4);
      expect(fresh.losses[0]).toBe(second.losses[0]);
      expect(fresh.losses.slice(1)).not.toEqual(second.losses.slice(1));
    },
  );

  it('fails a loop handed a state that lacks a tensor it carries, naming it', async () => {
    const start = initMlpWeights(spec, createRandom(3));
    const first = await trainLoop('momentum', start, 2, 0);
    const { 'velocity.b0': _dropped, ...rest } = first.state.tensors;
    const step = buildMlpTrainStep(spec, { optimizer: 'momentum', loss: 'softmax_cross_entropy' });
    const def: ModelDef = { id: modelId('step'), model: step.model, residentBytes: 0 };
    const runner = new ProgramRunner({
      runtime: wasmRuntime,
      pool: new DeviceMemoryPool(1e9),
      models: [def],
    });
    const loop = mlpTrainLoop({
      name: 'train',
      model: def.id,
      step,
      units: 2,
      batchSize: ROWS,
      hyperparameters: { lr: 0.05 },
      initialWeights: first.weights,
      initialState: { ...first.state, tensors: rest },
      batch: batchOf,
    });
    const report = await runner.run([{ id: requestId('r'), program: { steps: [loop] } }], 'serial');
    await runner.close();
    expect(report.results[0]!.error?.message).toBe(
      'train: the optimizer state to start from has nothing for velocity.b0, which takes 6',
    );
  });
});
