/**
 * What every built-in block's train step shares: the loss and its gradient
 * on the logits, and the tail that turns gradients into updated weights.
 *
 * Idea: a block (the conv block, the attention block) writes only its own
 * forward and backward passes; this file adds the loss, declares the
 * optimizer, applies its update to every weight and names the outputs
 * exactly as the MLP's train step does (`next.*`, `grad.*`, `carried`), so
 * the program runner trains any block the way it trains the MLP, without
 * knowing which one it is. Trade-off: the loss works on 2-D logits
 * `[rows, outputs]`; a block with a sequence axis flattens it first, so its
 * loss is the mean over every position of every example.
 */
import type { ValueRef } from './graph.ts';
import { TracingGraphBuilder, type GraphTrace } from './graph-trace.ts';
import { weightRefs } from './block-weights.ts';
import {
  huberLoss,
  meanSquaredError,
  softmaxCrossEntropy,
  type MlpLossKind,
} from './mlp-layers.ts';
import {
  declareOptimizer,
  type AdamInputs,
  type CarriedRole,
  type MlpOptimizer,
  type OptimizerGraph,
} from './mlp-optim.ts';
import type { WeightSlot } from './mlp-spec.ts';
import type { Dim } from './proto.ts';

/** How the train step updates the weights and what it reports. */
export interface TrainStepOptions {
  /** See {@link MlpOptimizer} for each update rule. */
  readonly optimizer: MlpOptimizer;
  /**
   * `softmax_cross_entropy`: mean over the batch, targets one-hot (or any
   * row-stochastic) rows. `mse`: mean over all elements of `(logits − y)²`.
   */
  readonly loss: MlpLossKind;
  /** Also output each raw gradient as `grad.<weight>` (for gradient checks and diagnostics). */
  readonly emitGradients?: boolean;
  /**
   * Gather the batch on the device: the step takes the whole dataset
   * (`dataset.x`, `dataset.y`, fed once per loop where they stay on the
   * device) and the batch's row indices (`rows`, int32), and its first ops
   * gather `x` and `y` from them. Without it the graph takes `x` and `y`,
   * byte for byte as it always has.
   */
  readonly residentRows?: boolean;
  /** Make the optimizer state's denormal values zero each step (`OptimizerOptions`); default true. */
  readonly flushDenormals?: boolean;
}

/** The inputs of a train step built with `residentRows`. */
export interface ResidentRowsInputs {
  /** Every training row's features, `[rows, …x's row shape]` float32. */
  readonly x: string;
  /** Every training row's targets, `[rows, outputSize]` float32. */
  readonly y: string;
  /** The batch's row indices into them, `[batch]` int32. */
  readonly rows: string;
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

/**
 * A built train step of any block (the MLP, the conv block, the attention
 * block): the model bytes and the names of its inputs and outputs.
 */
export interface TrainStep {
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
    /**
     * With `residentRows`: the dataset and row inputs, and `x`, `y` above
     * name the gathered batch inside the graph (not inputs).
     */
    readonly resident?: ResidentRowsInputs;
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

/** Throws a RangeError naming the loss when it is not one the builders emit. */
export function checkLossKind(loss: unknown): asserts loss is MlpLossKind {
  if (loss !== 'softmax_cross_entropy' && loss !== 'mse' && loss !== 'huber')
    throw new RangeError(
      `unknown loss: ${String(loss)} (expected softmax_cross_entropy, mse or huber)`,
    );
}

/**
 * The mean loss over the rows of 2-D `logits` `[rows, outputs]` and its
 * gradient on them. Cross-entropy: `(softmax·Σy − y) / rows`; MSE (mean over
 * every element): `2·(logits − y) / (rows·outputs)`.
 */
export function lossWithGradient(
  g: TracingGraphBuilder,
  kind: MlpLossKind,
  logits: ValueRef,
  y: ValueRef,
  outputs: number,
): { loss: ValueRef; dLogits: ValueRef } {
  const rows = g.op(
    'Cast',
    [g.op('Gather', [g.op('Shape', [logits]), g.constant(0, 'int64')], { axis: 0 })],
    { to: 1 },
  );
  if (kind === 'mse') {
    const { loss, difference } = meanSquaredError(g, logits, y, 'loss');
    const scaled = g.op('Mul', [difference, g.constant(2 / outputs)]);
    return { loss, dLogits: g.op('Div', [scaled, rows]) };
  }
  if (kind === 'huber') {
    const { loss, clipped } = huberLoss(g, logits, y, 'loss');
    const scaled = g.op('Mul', [clipped, g.constant(1 / outputs)]);
    return { loss, dLogits: g.op('Div', [scaled, rows]) };
  }
  const { loss, logProbabilities } = softmaxCrossEntropy(g, logits, y, 'loss');
  const ySum = g.op('ReduceSum', [y, g.constant([1], 'int64')], { keepdims: 1 });
  const probabilities = g.op('Exp', [logProbabilities]);
  const dLogits = g.op('Div', [g.op('Sub', [g.op('Mul', [probabilities, ySum]), y]), rows]);
  return { loss, dLogits };
}

/** What a block hands over once its backward pass is written. */
export interface TrainStepParts {
  readonly layout: readonly WeightSlot[];
  /** Weight name → its graph input. */
  readonly weights: ReadonlyMap<string, ValueRef>;
  /** Weight name → its gradient of the loss. */
  readonly gradients: ReadonlyMap<string, ValueRef>;
  readonly optimizer: OptimizerGraph;
  readonly x: ValueRef;
  readonly y: ValueRef;
  readonly loss: ValueRef;
  readonly emitGradients: boolean;
  readonly resident?: ResidentRowsInputs;
}

/** Applies the optimizer to every weight, declares the outputs and encodes the model. */
export function finishTrainStep(g: TracingGraphBuilder, parts: TrainStepParts): TrainStep {
  const { layout, optimizer } = parts;
  const carriedWeights: CarriedTensor[] = [];
  const carriedState: CarriedTensor[] = [];
  const outputs: { value: ValueRef; name: string; dims: readonly number[] }[] = [];
  const stateOutputs: typeof outputs = [];
  const gradientOutputs: typeof outputs = [];
  for (const slot of layout) {
    const w = parts.weights.get(slot.name);
    const grad = parts.gradients.get(slot.name);
    if (w === undefined || grad === undefined)
      throw new Error(`unreachable: weight ${slot.name} has no input or no gradient`);
    const next = optimizer.update(slot, w, grad);
    outputs.push({ value: next.weight, name: next.weight.name, dims: slot.dims });
    carriedWeights.push({
      role: 'weight',
      weight: slot.name,
      input: w.name,
      output: next.weight.name,
      dims: slot.dims,
    });
    for (const s of next.state) {
      const input = (optimizer.state.get(slot.name) ?? []).find((i) => i.role === s.role);
      if (input === undefined) throw new Error(`unreachable: ${s.role} without an input`);
      stateOutputs.push({ value: s.value, name: s.value.name, dims: slot.dims });
      carriedState.push({
        role: s.role,
        weight: slot.name,
        input: input.input.name,
        output: s.value.name,
        dims: slot.dims,
      });
    }
    if (parts.emitGradients)
      gradientOutputs.push({ value: grad, name: `grad.${slot.name}`, dims: slot.dims });
  }
  g.output(parts.loss, parts.loss.name, 'float32', []);
  for (const o of [...outputs, ...stateOutputs, ...gradientOutputs])
    g.output(o.value, o.name, 'float32', o.dims);

  const carried = [...carriedWeights, ...carriedState];
  const byRole = (role: CarriedTensor['role'], end: 'input' | 'output') =>
    Object.fromEntries(carried.filter((c) => c.role === role).map((c) => [c.weight, c[end]]));
  return {
    model: g.toModel(),
    graph: g.trace(),
    inputs: {
      x: parts.x.name,
      y: parts.y.name,
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
      ...(parts.resident && { resident: parts.resident }),
    },
    outputs: {
      loss: parts.loss.name,
      weights: byRole('weight', 'output'),
      velocities: byRole('velocity', 'output'),
      firstMoments: byRole('first_moment', 'output'),
      secondMoments: byRole('second_moment', 'output'),
      gradients: parts.emitGradients
        ? Object.fromEntries(layout.map((s) => [s.name, `grad.${s.name}`]))
        : {},
    },
    carried,
  };
}

/** A block's train step once its inputs are declared, waiting for its backward pass. */
export interface TrainStepGraph {
  readonly g: TracingGraphBuilder;
  /** The examples, as declared. */
  readonly x: ValueRef;
  /** The targets, as declared. */
  readonly y: ValueRef;
  /** Weight name → its graph input, in layout order. */
  readonly weights: ReadonlyMap<string, ValueRef>;
  /** Hands the loss and every weight's gradient to {@link finishTrainStep}. */
  readonly finish: (loss: ValueRef, gradients: ReadonlyMap<string, ValueRef>) => TrainStep;
}

/**
 * The wiring every block's train step opens with: checks the loss kind,
 * takes the block's weight layout (which checks its spec, so after the loss),
 * names the graph `<block>_train_step_<optimizer>_<loss>` and declares, in
 * this order, `x`, `y`, the weights and the optimizer's inputs.
 */
export function startTrainStep(
  block: string,
  options: TrainStepOptions,
  weightLayout: () => readonly WeightSlot[],
  shapes: { readonly x: readonly Dim[]; readonly y: readonly Dim[] },
): TrainStepGraph {
  checkLossKind(options.loss); // a guard for options that come from untyped data
  const layout = weightLayout();
  const resident = options.residentRows === true;
  const g = new TracingGraphBuilder(
    `${block}_train_step_${options.optimizer}_${options.loss}${resident ? '_resident_rows' : ''}`,
  );
  const { x, y, rows } = resident ? gatheredBatch(g, shapes) : declaredBatch(g, shapes);
  const weights = weightRefs(g, layout);
  const optimizer = declareOptimizer(g, options.optimizer, layout, {
    ...(options.flushDenormals !== undefined && { flushDenormals: options.flushDenormals }),
  });
  const emitGradients = options.emitGradients === true;
  return {
    g,
    x,
    y,
    weights,
    finish: (loss, gradients) =>
      finishTrainStep(g, {
        layout,
        weights,
        gradients,
        optimizer,
        x,
        y,
        loss,
        emitGradients,
        ...(rows && { resident: rows }),
      }),
  };
}

type BatchShapes = { readonly x: readonly Dim[]; readonly y: readonly Dim[] };

/** The batch as the graph's first inputs, `x` and `y`. */
function declaredBatch(
  g: TracingGraphBuilder,
  shapes: BatchShapes,
): { x: ValueRef; y: ValueRef; rows: null } {
  return { x: g.input('x', 'float32', shapes.x), y: g.input('y', 'float32', shapes.y), rows: null };
}

/** Symbolic size of a resident dataset's first axis. */
const DATASET_ROWS = 'dataset_rows';

/**
 * The batch gathered from the whole dataset by row index: inputs
 * `dataset.x`, `dataset.y` (the batch's shapes with `dataset_rows` for the
 * batch axis) and `rows` (int32 `[batch]`); `x`, `y` are Gathers on axis 0.
 */
function gatheredBatch(
  g: TracingGraphBuilder,
  shapes: BatchShapes,
): { x: ValueRef; y: ValueRef; rows: ResidentRowsInputs } {
  const datasetX = g.input('dataset.x', 'float32', [DATASET_ROWS, ...shapes.x.slice(1)]);
  const datasetY = g.input('dataset.y', 'float32', [DATASET_ROWS, ...shapes.y.slice(1)]);
  const rows = g.input('rows', 'int32', [shapes.x[0] ?? 'batch']);
  const x = g.op('Gather', [datasetX, rows], { axis: 0 }, { name: 'x' });
  const y = g.op('Gather', [datasetY, rows], { axis: 0 }, { name: 'y' });
  return { x, y, rows: { x: datasetX.name, y: datasetY.name, rows: rows.name } };
}
