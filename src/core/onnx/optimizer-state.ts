/**
 * An optimizer's state as plain data: what a trained model keeps of its
 * training besides the weights, so that a later training goes on where it
 * stopped instead of restarting its optimizer from zero.
 *
 * Idea: the state is exactly what the train step carries from one step to
 * the next besides the weights (momentum's velocity, Adam's two moments),
 * keyed by the step's own input names (`velocity.W0`, `m.W0`, `v.W0` …),
 * plus the steps it has seen, from which Adam's step counter goes on. A
 * training resumes it only when the same optimizer made it for weights of
 * the same layout; anything else starts from zero, as a fresh training does,
 * and says why. Trade-off: the hyperparameters (learning rate, μ, β) are not
 * part of the state, so a training may change them and still resume, as
 * PyTorch does when an optimizer's saved state is loaded into new param
 * groups.
 */
import { optimizerStateRoles, STATE_PREFIX, type MlpOptimizer } from './mlp-optim.ts';
import { elementCount, type WeightSlot } from './mlp-spec.ts';

/** The state an optimizer carried at the end of a training. */
export interface OptimizerState {
  /** The update rule that made it, as the train step names it. */
  readonly optimizer: MlpOptimizer;
  /**
   * Each state tensor by its train-step input name (`velocity.W0` for
   * momentum; `m.W0` and `v.W0` for Adam), as many values as its weight;
   * none for sgd.
   */
  readonly tensors: Readonly<Record<string, Float32Array>>;
  /** Update steps taken (Adam's step counter of the last one); the next step is `steps + 1`. */
  readonly steps: number;
}

/** One tensor of an optimizer's state: its train-step input, its weight and their dims. */
export interface OptimizerStateSlot {
  readonly input: string;
  readonly weight: string;
  readonly dims: readonly number[];
}

/** The state tensors `optimizer` carries for weights of `layout`, in the order its train step carries them. */
export function optimizerStateSlots(
  optimizer: MlpOptimizer,
  layout: readonly WeightSlot[],
): OptimizerStateSlot[] {
  const roles = optimizerStateRoles(optimizer);
  return layout.flatMap((slot) =>
    roles.map((role) => ({
      input: `${STATE_PREFIX[role]}${slot.name}`,
      weight: slot.name,
      dims: slot.dims,
    })),
  );
}

/** What a training starts its optimizer from, and what it tells the person about it. */
export interface StateResumption {
  /** The state to start from; null: zeros, as a fresh training. */
  readonly state: OptimizerState | null;
  /** A line for the node's log, or null when there is nothing to say. */
  readonly log: string | null;
}

/**
 * Whether a training with `optimizer` of weights `layout` resumes `carried`
 * (the input model's state): only when the same optimizer made it for the
 * same weights; otherwise it starts at zero and the log line says why.
 */
export function resumeOptimizerState(
  optimizer: MlpOptimizer,
  layout: readonly WeightSlot[],
  carried: OptimizerState | undefined,
): StateResumption {
  const slots = optimizerStateSlots(optimizer, layout);
  const fresh = (why: string): StateResumption => ({
    state: null,
    log: slots.length === 0 ? null : `${optimizer} state starts at zero: ${why}`,
  });
  if (carried === undefined) return fresh('the input model carries no optimizer state');
  if (carried.optimizer !== optimizer)
    return slots.length === 0
      ? {
          state: null,
          log: `the input model's ${carried.optimizer} state is not used: sgd has none`,
        }
      : fresh(`the input model's state is ${carried.optimizer}'s`);
  const misfit = misfitOf(slots, carried);
  if (misfit !== null)
    return fresh(`the input model's ${optimizer} state does not fit its weights (${misfit})`);
  return {
    state: carried,
    log: `resumed ${optimizer} state from the input model (${carried.steps} steps before)`,
  };
}

/** What in `state` does not fit `slots`, or null when it all does. */
function misfitOf(slots: readonly OptimizerStateSlot[], state: OptimizerState): string | null {
  if (!Number.isSafeInteger(state.steps) || state.steps < 0)
    return `its step count is ${state.steps}`;
  for (const slot of slots) {
    const data = state.tensors[slot.input];
    const expected = elementCount(slot.dims);
    if (!(data instanceof Float32Array)) return `it has no float32 ${slot.input}`;
    if (data.length !== expected)
      return `${slot.input} has ${data.length} values, weight ${slot.weight} ${expected}`;
  }
  const extra = Object.keys(state.tensors).find((name) => !slots.some((s) => s.input === name));
  return extra === undefined ? null : `${extra} belongs to no weight of the model`;
}
