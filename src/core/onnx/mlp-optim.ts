/**
 * The optimizer updates of the MLP train step, as ONNX ops.
 *
 * Idea: an optimizer is its hyperparameter inputs, the state it carries per
 * weight from one step to the next (velocity; Adam's two moments), and one
 * update rule per weight. The state goes in as graph inputs and comes out as
 * `next.*` outputs, like the weights, so the caller (the program runner)
 * carries it generically without knowing which optimizer it is.
 * Hyperparameters are inputs too, so changing the learning rate or Adam's
 * step counter never rebuilds the model. Trade-off: Adam's bias corrections
 * are recomputed (two scalar `Pow`s) every step instead of being fed in.
 */
import type { GraphBuilder, ValueRef } from './graph.ts';
import { scalar } from './mlp-activations.ts';
import type { WeightSlot } from './mlp-spec.ts';

/**
 * `sgd`: `W ← W − lr·g`. `momentum`: `v ← μ·v + g; W ← W − lr·v`.
 * `adam` (Kingma & Ba, as PyTorch's `Adam`): `m ← β₁m + (1−β₁)g`,
 * `v ← β₂v + (1−β₂)g²`, `W ← W − (lr / (1−β₁ᵗ)) · m / (√v / √(1−β₂ᵗ) + ε)`,
 * with the step counter `t` (1 for the first step) fed in.
 */
export type MlpOptimizer = 'sgd' | 'momentum' | 'adam';

/** Every {@link MlpOptimizer}. */
export const mlpOptimizers: readonly MlpOptimizer[] = ['sgd', 'momentum', 'adam'];

/** What a carried tensor is: a weight, or one of the optimizer's per-weight states. */
export type CarriedRole = 'weight' | 'velocity' | 'first_moment' | 'second_moment';

/** Input-name prefix of each optimizer state (outputs add `next.`). */
export const STATE_PREFIX: Readonly<Record<Exclude<CarriedRole, 'weight'>, string>> = {
  velocity: 'velocity.',
  first_moment: 'm.',
  second_moment: 'v.',
};

const STATES: Readonly<Record<MlpOptimizer, readonly Exclude<CarriedRole, 'weight'>[]>> = {
  sgd: [],
  momentum: ['velocity'],
  adam: ['first_moment', 'second_moment'],
};

/** The state `kind` carries per weight, in the order its train step declares it (none for sgd). */
export function optimizerStateRoles(kind: MlpOptimizer): readonly Exclude<CarriedRole, 'weight'>[] {
  return STATES[kind];
}

/** Adam's hyperparameter inputs (float32 scalars or `[1]`). */
export interface AdamInputs<T> {
  readonly beta1: T;
  readonly beta2: T;
  readonly epsilon: T;
  /** The step counter `t`, 1 for the first step. */
  readonly step: T;
}

/** The update rule and the inputs it declared. */
export interface OptimizerGraph {
  readonly lr: ValueRef;
  readonly momentum: ValueRef | null;
  readonly adam: AdamInputs<ValueRef> | null;
  /** Per weight, the state inputs in {@link STATES} order. */
  readonly state: ReadonlyMap<string, readonly { role: CarriedRole; input: ValueRef }[]>;
  /** Emits one weight's update; returns the updated weight and state, named `next.*`. */
  update(
    slot: WeightSlot,
    w: ValueRef,
    grad: ValueRef,
  ): { weight: ValueRef; state: { role: CarriedRole; value: ValueRef }[] };
}

/** The least normal float32 (2⁻¹²⁶): a nonzero value smaller in magnitude is denormal. */
const LEAST_NORMAL = 1.1754943508222875e-38;
/** ONNX's element type number for float32 (`Cast`'s `to`). */
const FLOAT = 1;

/**
 * `x` with its denormal values made zero: `x · (|x| ≥ 2⁻¹²⁶)`. An
 * optimizer's state decays towards zero, and where a weight's gradient
 * stays tiny its state sits among the denormals for thousands of steps,
 * each step over them many times slower on a CPU (onnxruntime's WASM build
 * has no flag to flush them). The bench's MLP with momentum on WASM:
 * steps 1,000–3,000 took 6.4–6.7 ms each, 4.4–4.6 with the state flushed,
 * its losses and weights bit for bit the same (a weight moves by lr times
 * its state, and a denormal's share is far below a float32 weight's
 * rounding).
 */
function flushDenormals(
  g: GraphBuilder,
  x: ValueRef,
  options: { readonly name: string },
): ValueRef {
  const normal = g.op('GreaterOrEqual', [g.op('Abs', [x]), scalar(g, LEAST_NORMAL)]);
  return g.op('Mul', [x, g.op('Cast', [normal], { to: FLOAT })], {}, options);
}

/** How the update rule is built. */
export interface OptimizerOptions {
  /**
   * Make the carried state's denormal values zero each step
   * (`flushDenormals`); default true. A GPU flushes them already, so a step
   * built for the device alone leaves them be.
   */
  readonly flushDenormals?: boolean;
}

/** Declares the optimizer's inputs on `g` and returns its update rule. */
export function declareOptimizer(
  g: GraphBuilder,
  kind: MlpOptimizer,
  layout: readonly WeightSlot[],
  options: OptimizerOptions = {},
): OptimizerGraph {
  // A guard for options that come from untyped data.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
  if (STATES[kind] === undefined) throw new RangeError(`unknown optimizer: ${kind}`);
  const lr = g.input('lr', 'float32');
  const momentum = kind === 'momentum' ? g.input('momentum', 'float32') : null;
  const adam =
    kind === 'adam'
      ? {
          beta1: g.input('beta1', 'float32'),
          beta2: g.input('beta2', 'float32'),
          epsilon: g.input('epsilon', 'float32'),
          step: g.input('step', 'float32'),
        }
      : null;
  const state = new Map(
    layout.map((slot) => [
      slot.name,
      STATES[kind].map((role) => ({
        role,
        input: g.input(`${STATE_PREFIX[role]}${slot.name}`, 'float32', slot.dims),
      })),
    ]),
  );
  // Scalars shared by every weight's Adam update, computed once per step.
  const adamScalars =
    adam === null
      ? null
      : {
          stepSize: g.op('Div', [
            lr,
            g.op('Sub', [scalar(g, 1), g.op('Pow', [adam.beta1, adam.step])]),
          ]),
          correction2: g.op('Sqrt', [
            g.op('Sub', [scalar(g, 1), g.op('Pow', [adam.beta2, adam.step])]),
          ]),
          keep1: g.op('Sub', [scalar(g, 1), adam.beta1]),
          keep2: g.op('Sub', [scalar(g, 1), adam.beta2]),
        };
  const named = (role: Exclude<CarriedRole, 'weight'>, weight: string) => ({
    name: `next.${STATE_PREFIX[role]}${weight}`,
  });
  /**
   * The updated state of `role`, named as the step returns it: `sum`'s
   * terms added, flushed unless told not to.
   */
  const stateOut = (
    role: Exclude<CarriedRole, 'weight'>,
    weight: string,
    sum: readonly [ValueRef, ValueRef],
  ): ValueRef =>
    options.flushDenormals === false
      ? g.op('Add', sum, {}, named(role, weight))
      : flushDenormals(g, g.op('Add', sum), named(role, weight));

  return {
    lr,
    momentum,
    adam,
    state,
    update(slot, w, grad) {
      const inputs = state.get(slot.name) ?? [];
      const stateIn = (role: CarriedRole): ValueRef => {
        const found = inputs.find((s) => s.role === role);
        if (found === undefined) throw new Error(`unreachable: no ${role} for ${slot.name}`);
        return found.input;
      };
      const weight = (step: ValueRef): ValueRef =>
        g.op('Sub', [w, step], {}, { name: `next.${slot.name}` });
      if (momentum !== null) {
        const v = stateOut('velocity', slot.name, [
          g.op('Mul', [momentum, stateIn('velocity')]),
          grad,
        ]);
        return {
          weight: weight(g.op('Mul', [lr, v])),
          state: [{ role: 'velocity', value: v }],
        };
      }
      if (adam !== null && adamScalars !== null) {
        const m = stateOut('first_moment', slot.name, [
          g.op('Mul', [adam.beta1, stateIn('first_moment')]),
          g.op('Mul', [adamScalars.keep1, grad]),
        ]);
        const v = stateOut('second_moment', slot.name, [
          g.op('Mul', [adam.beta2, stateIn('second_moment')]),
          g.op('Mul', [adamScalars.keep2, g.op('Mul', [grad, grad])]),
        ]);
        const denominator = g.op('Add', [
          g.op('Div', [g.op('Sqrt', [v]), adamScalars.correction2]),
          adam.epsilon,
        ]);
        return {
          weight: weight(g.op('Mul', [adamScalars.stepSize, g.op('Div', [m, denominator])])),
          state: [
            { role: 'first_moment', value: m },
            { role: 'second_moment', value: v },
          ],
        };
      }
      return { weight: weight(g.op('Mul', [lr, grad])), state: [] };
    },
  };
}
