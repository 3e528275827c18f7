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
import { checkLossKind, finishTrainStep, lossWithGradient } from './train-step.ts';

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
  checkLossKind(options.loss); // a guard for options that come from untyped data
  const layout = mlpWeightLayout(spec);
  const emitGradients = options.emitGradients === true;
  const g = new TracingGraphBuilder(`mlp_train_step_${options.optimizer}_${options.loss}`);

  const x = g.input('x', 'float32', [BATCH, spec.inputSize]);
  const y = g.input('y', 'float32', [BATCH, spec.outputSize]);
  const layers = declareWeights(g, layout);
  const optimizer = declareOptimizer(g, options.optimizer, layout);

  const trace = forward(g, spec, x, layers);
  const { loss, dLogits } = lossWithGradient(g, options.loss, trace.logits, y, spec.outputSize);
  const gradients = backward(g, spec, layers, trace, dLogits, emitGradients);

  const weights = new Map(
    layers.flatMap((p) => [[p.W.name, p.W] as const, [p.b.name, p.b] as const]),
  );
  return finishTrainStep(g, { layout, weights, gradients, optimizer, x, y, loss, emitGradients });
}
