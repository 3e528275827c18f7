/**
 * The MLP train step as one ONNX graph: forward, loss, backward and the
 * optimizer update, weights in → updated weights out.
 *
 * Idea: onnxruntime-web has no training API, so we write the backward pass by
 * hand with ordinary operators (Gemm with transA/transB, ReduceSum, Where …)
 * that every execution provider runs. Everything a step changes — the weights
 * and the optimizer's state — goes in as inputs and comes out as `next.*`
 * outputs, listed once in `carried`, so the caller feeds each step's outputs
 * to the next step without knowing the optimizer; the session itself is
 * stateless, so one session serves any batch size and any number of
 * concurrent requests. Trade-off: the gradient rules are ours to get right
 * (the tests check them against finite differences), and the carried tensors
 * cross the session boundary every step (kept on the device where the
 * runtime can, see the program runner).
 */
import type { ValueRef } from './graph.ts';
import { TracingGraphBuilder, type GraphTrace } from './graph-trace.ts';
import { activationGradient } from './mlp-activations.ts';
import {
  BATCH,
  declareWeights,
  forward,
  meanSquaredError,
  softmaxCrossEntropy,
  type LayerParams,
  type ForwardTrace,
  type MlpLossKind,
} from './mlp-layers.ts';
import {
  declareOptimizer,
  type AdamInputs,
  type CarriedRole,
  type MlpOptimizer,
} from './mlp-optim.ts';
import { mlpWeightLayout, type MlpSpec } from './mlp-spec.ts';

/** How the train step updates the weights and what it reports. */
export interface MlpTrainStepOptions {
  /** See {@link MlpOptimizer} for each update rule. */
  readonly optimizer: MlpOptimizer;
  /**
   * `softmax_cross_entropy`: mean over the batch, targets one-hot (or any
   * row-stochastic) rows. `mse`: mean over all elements of `(logits − y)²`.
   */
  readonly loss: MlpLossKind;
  /** Also output each raw gradient as `grad.<weight>` (for gradient checks and diagnostics). */
  readonly emitGradients?: boolean;
}

/** A tensor the step carries: fed in as `input`, returned updated as `output`. */
export interface CarriedTensor {
  readonly role: CarriedRole;
  /** The weight it belongs to (`W0`, `b0` …). */
  readonly weight: string;
  readonly input: string;
  readonly output: string;
  readonly dims: readonly number[];
}

/** A built train step: the model bytes and the names of its inputs and outputs. */
export interface MlpTrainStep {
  readonly model: Uint8Array;
  /** The graph's structure, for memory estimates. */
  readonly graph: GraphTrace;
  readonly inputs: {
    /** `[batch, inputSize]` float32. */
    readonly x: string;
    /** Targets, `[batch, outputSize]` float32 (one-hot rows for cross-entropy). */
    readonly y: string;
    /** Learning rate, a float32 scalar or `[1]`. */
    readonly lr: string;
    /** Momentum coefficient μ (scalar or `[1]`), or null unless `momentum`. */
    readonly momentum: string | null;
    /** Adam's β₁, β₂, ε and step counter `t` (scalars or `[1]`), or null unless `adam`. */
    readonly adam: AdamInputs<string> | null;
    /** Weight name → graph input name. */
    readonly weights: Readonly<Record<string, string>>;
    /** Weight name → velocity input name (momentum only; zeros to start). */
    readonly velocities: Readonly<Record<string, string>>;
    /** Weight name → Adam first-moment input name (adam only; zeros to start). */
    readonly firstMoments: Readonly<Record<string, string>>;
    /** Weight name → Adam second-moment input name (adam only; zeros to start). */
    readonly secondMoments: Readonly<Record<string, string>>;
  };
  readonly outputs: {
    /** The scalar loss of the batch, before the update. */
    readonly loss: string;
    /** Weight name → updated weight output name. */
    readonly weights: Readonly<Record<string, string>>;
    /** Weight name → updated velocity output name (momentum only). */
    readonly velocities: Readonly<Record<string, string>>;
    /** Weight name → updated first moment (adam only). */
    readonly firstMoments: Readonly<Record<string, string>>;
    /** Weight name → updated second moment (adam only). */
    readonly secondMoments: Readonly<Record<string, string>>;
    /** Weight name → gradient output name (with `emitGradients` only). */
    readonly gradients: Readonly<Record<string, string>>;
  };
  /** Every carried tensor: weights first (layout order), then optimizer state. */
  readonly carried: readonly CarriedTensor[];
}

/** `dL/dlogits` of the mean loss over a batch of `x`. */
function lossGradient(
  g: TracingGraphBuilder,
  spec: MlpSpec,
  kind: MlpLossKind,
  x: ValueRef,
  y: ValueRef,
  logits: ValueRef,
): { loss: ValueRef; dLogits: ValueRef } {
  const batch = g.op(
    'Cast',
    [g.op('Gather', [g.op('Shape', [x]), g.constant(0, 'int64')], { axis: 0 })],
    { to: 1 },
  );
  if (kind === 'mse') {
    const { loss, difference } = meanSquaredError(g, logits, y, 'loss');
    // d/dŷ mean((ŷ − y)²) = 2·(ŷ − y) / (batch · outputs)
    const scaled = g.op('Mul', [difference, g.constant(2 / spec.outputSize)]);
    return { loss, dLogits: g.op('Div', [scaled, batch]) };
  }
  const { loss, logProbabilities } = softmaxCrossEntropy(g, logits, y, 'loss');
  // d loss / d logits = (softmax · Σy − y) / batch. Σy is 1 for one-hot rows;
  // keeping it makes the rule exact for soft targets too.
  const ySum = g.op('ReduceSum', [y, g.constant([1], 'int64')], { keepdims: 1 });
  const probabilities = g.op('Exp', [logProbabilities]);
  const dLogits = g.op('Div', [g.op('Sub', [g.op('Mul', [probabilities, ySum]), y]), batch]);
  return { loss, dLogits };
}

/** The backward pass: weight name → gradient, from `dLogits` down to layer 0. */
function backward(
  g: TracingGraphBuilder,
  spec: MlpSpec,
  layers: readonly LayerParams[],
  trace: ForwardTrace,
  dLogits: ValueRef,
  emitGradients: boolean,
): Map<string, ValueRef> {
  const gradients = new Map<string, ValueRef>();
  const gradName = (w: string): { name?: string } => (emitGradients ? { name: `grad.${w}` } : {});
  const batchAxis = g.constant([0], 'int64');
  let dz = dLogits;
  for (let l = layers.length - 1; l >= 0; l--) {
    const p = layers[l];
    const input = trace.inputs[l];
    if (p === undefined || input === undefined)
      throw new Error('unreachable: layer without params');
    gradients.set(p.W.name, g.op('Gemm', [input, dz], { transA: 1 }, gradName(p.W.name)));
    gradients.set(
      p.b.name,
      g.op('ReduceSum', [dz, batchAxis], { keepdims: 0 }, gradName(p.b.name)),
    );
    if (l === 0) break;
    const dh = g.op('Gemm', [dz, p.W], { transB: 1 });
    // `input` is this layer's input: the previous layer's activation h = act(z).
    const z = trace.preActivations[l - 1];
    if (z === undefined) throw new Error('unreachable: layer without pre-activation');
    dz = activationGradient(g, spec.activation, dh, z, input);
  }
  return gradients;
}

/**
 * Builds the train-step model for `spec`. The batch dimension is symbolic, so
 * one session serves every batch size; the loss is averaged over the batch.
 */
export function buildMlpTrainStep(spec: MlpSpec, options: MlpTrainStepOptions): MlpTrainStep {
  // A guard for options that come from untyped data.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
  if (options.loss !== 'softmax_cross_entropy' && options.loss !== 'mse')
    throw new RangeError(`unknown loss: ${String(options.loss)}`);
  const layout = mlpWeightLayout(spec);
  const emitGradients = options.emitGradients === true;
  const g = new TracingGraphBuilder(`mlp_train_step_${options.optimizer}_${options.loss}`);

  const x = g.input('x', 'float32', [BATCH, spec.inputSize]);
  const y = g.input('y', 'float32', [BATCH, spec.outputSize]);
  const layers = declareWeights(g, layout);
  const optimizer = declareOptimizer(g, options.optimizer, layout);

  const trace = forward(g, spec, x, layers);
  const { loss, dLogits } = lossGradient(g, spec, options.loss, x, y, trace.logits);
  const gradients = backward(g, spec, layers, trace, dLogits, emitGradients);

  const weightRefs = new Map(
    layers.flatMap((p) => [[p.W.name, p.W] as const, [p.b.name, p.b] as const]),
  );
  const weightOutputs: { value: ValueRef; dims: readonly number[] }[] = [];
  const stateOutputs: typeof weightOutputs = [];
  const gradientOutputs: typeof weightOutputs = [];
  const carried: CarriedTensor[] = [];
  const carriedState: CarriedTensor[] = [];
  for (const slot of layout) {
    const grad = gradients.get(slot.name) as ValueRef;
    const w = weightRefs.get(slot.name) as ValueRef;
    const next = optimizer.update(slot, w, grad);
    weightOutputs.push({ value: next.weight, dims: slot.dims });
    carried.push({
      role: 'weight',
      weight: slot.name,
      input: w.name,
      output: next.weight.name,
      dims: slot.dims,
    });
    for (const s of next.state) {
      stateOutputs.push({ value: s.value, dims: slot.dims });
      const input = (optimizer.state.get(slot.name) ?? []).find((i) => i.role === s.role);
      if (input === undefined) throw new Error(`unreachable: ${s.role} without an input`);
      carriedState.push({
        role: s.role,
        weight: slot.name,
        input: input.input.name,
        output: s.value.name,
        dims: slot.dims,
      });
    }
    if (emitGradients) gradientOutputs.push({ value: grad, dims: slot.dims });
  }

  g.output(loss, loss.name, 'float32', []);
  for (const o of [...weightOutputs, ...stateOutputs, ...gradientOutputs])
    g.output(o.value, o.value.name, 'float32', o.dims);

  const all = [...carried, ...carriedState];
  const byRole = (role: CarriedRole, end: 'input' | 'output'): Record<string, string> =>
    Object.fromEntries(all.filter((c) => c.role === role).map((c) => [c.weight, c[end]]));
  return {
    model: g.toModel(),
    graph: g.trace(),
    inputs: {
      x: x.name,
      y: y.name,
      lr: optimizer.lr.name,
      momentum: optimizer.momentum?.name ?? null,
      adam:
        optimizer.adam === null
          ? null
          : {
              beta1: optimizer.adam.beta1.name,
              beta2: optimizer.adam.beta2.name,
              epsilon: optimizer.adam.epsilon.name,
              step: optimizer.adam.step.name,
            },
      weights: byRole('weight', 'input'),
      velocities: byRole('velocity', 'input'),
      firstMoments: byRole('first_moment', 'input'),
      secondMoments: byRole('second_moment', 'input'),
    },
    outputs: {
      loss: loss.name,
      weights: byRole('weight', 'output'),
      velocities: byRole('velocity', 'output'),
      firstMoments: byRole('first_moment', 'output'),
      secondMoments: byRole('second_moment', 'output'),
      gradients: emitGradients
        ? Object.fromEntries(layout.map((s) => [s.name, `grad.${s.name}`]))
        : {},
    },
    carried: all,
  };
}
