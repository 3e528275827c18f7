/**
 * An optimizer's state as a trained model keeps it: the slots it names are
 * the ones each train step carries, and a training resumes it only when the
 * same optimizer made it for weights of the same layout, saying why not.
 */
import { describe, expect, it } from 'vitest';
import { buildBlockTrainStep } from './model-blocks';
import { buildMlpTrainStep, mlpOptimizers, mlpWeightLayout, type MlpSpec } from './mlp';
import { optimizerStateSlots, resumeOptimizerState, type OptimizerState } from './optimizer-state';

const spec: MlpSpec = { inputSize: 3, hidden: [4], outputSize: 2, activation: 'relu' };
const layout = mlpWeightLayout(spec);

/** A state `optimizer` could have left for `spec`'s weights, 7 steps in. */
function stateOf(optimizer: OptimizerState['optimizer']): OptimizerState {
  const tensors = Object.fromEntries(
    optimizerStateSlots(optimizer, layout).map((s) => [
      s.input,
      new Float32Array(s.dims.reduce((a, b) => a * b, 1)).fill(0.5),
    ]),
  );
  return { optimizer, tensors, steps: 7 };
}

describe('optimizer state slots', () => {
  it.each(mlpOptimizers)('are what the %s train step carries besides the weights', (optimizer) => {
    const mlp = buildMlpTrainStep(spec, { optimizer, loss: 'softmax_cross_entropy' });
    const cnn = buildBlockTrainStep(
      {
        architecture: 'cnn',
        ...{ channels: 1, height: 6, width: 6, filters: 2, kernel: 3, blocks: 1, outputSize: 2 },
      },
      { optimizer, loss: 'softmax_cross_entropy' },
    );
    for (const step of [mlp, cnn]) {
      const weights = step.carried.filter((c) => c.role === 'weight');
      const carried = step.carried
        .filter((c) => c.role !== 'weight')
        .map((c) => ({ input: c.input, weight: c.weight, dims: c.dims }));
      expect(
        optimizerStateSlots(
          optimizer,
          weights.map((w) => ({ name: w.weight, dims: w.dims })),
        ),
      ).toEqual(carried);
    }
    expect(optimizerStateSlots(optimizer, layout)).toHaveLength(
      { sgd: 0, momentum: 1, adam: 2 }[optimizer] * layout.length,
    );
  });
});

describe('resuming an optimizer state', () => {
  it('resumes a state of the same optimizer and layout, and says so', () => {
    const state = stateOf('momentum');
    expect(resumeOptimizerState('momentum', layout, state)).toEqual({
      state,
      log: 'resumed momentum state from the input model (7 steps before)',
    });
  });

  it('starts at zero for another optimizer or no state at all, saying why', () => {
    expect(resumeOptimizerState('adam', layout, stateOf('momentum'))).toEqual({
      state: null,
      log: "adam state starts at zero: the input model's state is momentum's",
    });
    expect(resumeOptimizerState('momentum', layout, undefined)).toEqual({
      state: null,
      log: 'momentum state starts at zero: the input model carries no optimizer state',
    });
    // Plain SGD has nothing to resume: it says only what it leaves unused.
    expect(resumeOptimizerState('sgd', layout, undefined)).toEqual({ state: null, log: null });
    expect(resumeOptimizerState('sgd', layout, stateOf('adam')).log).toBe(
      "the input model's adam state is not used: sgd has none",
    );
  });

  it('starts at zero for a state that does not fit the weights, naming what does not', () => {
    const state = stateOf('adam');
    const short = { ...state, tensors: { ...state.tensors, 'v.W0': new Float32Array(3) } };
    expect(resumeOptimizerState('adam', layout, short)).toEqual({
      state: null,
      log: "adam state starts at zero: the input model's adam state does not fit its weights (v.W0 has 3 values, weight W0 12)",
    });
    const deeper = mlpWeightLayout({ ...spec, hidden: [4, 4] });
    expect(resumeOptimizerState('adam', deeper, state).log).toContain(
      'm.W1 has 8 values, weight W1 16',
    );
    const listed = { ...state, tensors: { ...state.tensors, 'm.b0': [0, 0, 0, 0] } };
    expect(resumeOptimizerState('adam', layout, listed as unknown as OptimizerState).log).toContain(
      'it has no float32 m.b0',
    );
    const narrower = mlpWeightLayout({ ...spec, hidden: [] });
    expect(resumeOptimizerState('adam', narrower, state).log).toContain(
      'm.W0 has 12 values, weight W0 6',
    );
    const extra = { ...state, tensors: { ...state.tensors, 'm.W9': new Float32Array(1) } };
    expect(resumeOptimizerState('adam', layout, extra).log).toContain(
      'm.W9 belongs to no weight of the model',
    );
    expect(resumeOptimizerState('adam', layout, { ...state, steps: -1 }).log).toContain(
      'its step count is -1',
    );
  });
});
