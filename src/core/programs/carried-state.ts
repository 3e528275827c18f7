/**
 * A train loop's optimizer state at its two ends: the tensors it starts
 * from, and the state it hands back beside the trained weights.
 *
 * Idea: the loop already carries the optimizer state from step to step
 * without knowing which optimizer it is (`TrainStep.carried`); here it is
 * only seeded and read back. Starting from a trained model's state feeds
 * that state where zeros went, and Adam's step counter goes on from the
 * state's `steps`; at the end, the state tensors are read back with the
 * weights (`<prefix>.velocity.W0` …, `<prefix>.steps`), once. Trade-off:
 * reading it back costs one more copy from the device, so a loop does it
 * only when asked (`MlpTrainLoopOptions.stateOutput`).
 */
import {
  optimizerStateSlots,
  type CarriedTensor,
  type MlpOptimizer,
  type MlpWeights,
  type OptimizerState,
} from '../onnx/mlp.ts';
import type { Tensor } from '../runtime/tensor-runtime.ts';
import { programError } from './errors.ts';
import type { ProgramValue } from './program.ts';

/** Output (a number) of a loop's state under `prefix`: the steps it has seen in all. */
export const stateStepsOutput = (prefix: string): string => `${prefix}.steps`;

/** Output (a tensor) of a loop's state under `prefix`: the state input `input` at the end. */
export const stateTensorOutput = (prefix: string, input: string): string => `${prefix}.${input}`;

/**
 * What optimizer-state input `c` (`length` values) starts from: zeros, or
 * its tensor in `state`; a tensor missing or of another size fails the loop
 * `loop`, naming it.
 */
export function startingState(
  loop: string,
  c: CarriedTensor,
  length: number,
  state: OptimizerState | undefined,
): Tensor {
  if (state === undefined) return { type: 'float32', data: new Float32Array(length), dims: c.dims };
  const data = state.tensors[c.input];
  if (data?.length !== length)
    throw programError(
      'invalid-program',
      `${loop}: the optimizer state to start from has ${data === undefined ? 'nothing' : `${data.length} values`} ` +
        `for ${c.input}, which takes ${length}`,
    );
  return { type: 'float32', data, dims: c.dims };
}

/**
 * The optimizer state a train loop output under `prefix`, for `optimizer`
 * and the weights of `layout` (the trained weights' layout).
 */
export function trainedOptimizerState(
  outputs: Readonly<Record<string, ProgramValue>>,
  prefix: string,
  optimizer: MlpOptimizer,
  layout: MlpWeights['layout'],
): OptimizerState {
  const tensors: Record<string, Float32Array> = {};
  for (const slot of optimizerStateSlots(optimizer, layout)) {
    const value = outputs[stateTensorOutput(prefix, slot.input)];
    if (value === undefined || typeof value === 'number' || !(value.data instanceof Float32Array))
      throw new Error(`training returned no optimizer state ${slot.input}`);
    tensors[slot.input] = value.data;
  }
  const steps = outputs[stateStepsOutput(prefix)];
  if (typeof steps !== 'number') throw new Error('training returned no optimizer step count');
  return { optimizer, tensors, steps };
}
