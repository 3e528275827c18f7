/**
 * Subgraphs shared by the MLP's inference, loss and train-step models.
 *
 * Idea: the forward pass and the loss are written once, and every model that
 * needs them calls these functions on its own GraphBuilder, so the train step
 * optimises exactly the function that inference and evaluation compute.
 * Trade-off: the forward pass hands back every layer's input, which the
 * backward pass keeps alive (memory a fused kernel would spare); for the
 * small networks Flowbench trains it is negligible.
 */
import type { GraphBuilder, ValueRef } from './graph.ts';
import { activate } from './mlp-activations.ts';
import { weightRefs } from './block-weights.ts';
import type { MlpSpec, MlpWeights, WeightSlot } from './mlp-spec.ts';

/** Name of the dynamic batch dimension in every MLP model. */
export const BATCH = 'batch';

/** One dense layer's weight values. */
export interface LayerParams {
  readonly W: ValueRef;
  readonly b: ValueRef;
}

/** Every activation the backward pass needs. */
export interface ForwardTrace {
  /** `inputs[l]` feeds layer `l`: `x`, then each hidden activation. */
  readonly inputs: readonly ValueRef[];
  /** `preActivations[l]` is layer `l`'s Gemm output `z` (the last one is the logits). */
  readonly preActivations: readonly ValueRef[];
  /** The final layer's output (pre-softmax scores). */
  readonly logits: ValueRef;
}

/**
 * Declares the weights as graph inputs, or, when `weights` are given, bakes
 * them in as initializers. Returns them grouped by layer, in layout order.
 */
export function declareWeights(
  g: GraphBuilder,
  layout: readonly WeightSlot[],
  weights?: MlpWeights,
): LayerParams[] {
  return layersOf([...weightRefs(g, layout, weights).values()]);
}

/** The MLP's weights, in layout order (`W0, b0, W1, b1 …`), grouped by layer. */
export function layersOf(refs: readonly ValueRef[]): LayerParams[] {
  const layers: LayerParams[] = [];
  for (let i = 0; i + 1 < refs.length; i += 2)
    layers.push({ W: refs[i] as ValueRef, b: refs[i + 1] as ValueRef });
  return layers;
}

/** `x → Gemm → act → … → Gemm → logits`; names the logits `logitsName` when given. */
export function forward(
  g: GraphBuilder,
  spec: MlpSpec,
  x: ValueRef,
  layers: readonly LayerParams[],
  logitsName?: string,
): ForwardTrace {
  const inputs: ValueRef[] = [];
  const preActivations: ValueRef[] = [];
  let h = x;
  layers.forEach((p, l) => {
    inputs.push(h);
    const last = l === layers.length - 1;
    const z = g.op(
      'Gemm',
      [h, p.W, p.b],
      {},
      last && logitsName !== undefined ? { name: logitsName } : {},
    );
    preActivations.push(z);
    h = last ? z : activate(g, spec.activation, z);
  });
  return { inputs, preActivations, logits: h };
}

/** Outputs of {@link softmaxCrossEntropy}. */
export interface CrossEntropy {
  /** Scalar mean over the batch of `-Σ y·log softmax(logits)`. */
  readonly loss: ValueRef;
  /** `log softmax(logits)`, `[batch, classes]`. */
  readonly logProbabilities: ValueRef;
}

/**
 * Mean softmax cross-entropy, computed stably as a log-softmax
 * (`s = logits − max`, `log p = s − log Σ exp s`), so no probability is ever
 * rounded to zero and then logged.
 */
export function softmaxCrossEntropy(
  g: GraphBuilder,
  logits: ValueRef,
  y: ValueRef,
  lossName: string,
): CrossEntropy {
  const classAxis = g.constant([1], 'int64');
  const max = g.op('ReduceMax', [logits], { axes: [1], keepdims: 1 });
  const shifted = g.op('Sub', [logits, max]);
  const sumExp = g.op('ReduceSum', [g.op('Exp', [shifted]), classAxis], { keepdims: 1 });
  const logProbabilities = g.op('Sub', [shifted, g.op('Log', [sumExp])]);
  const perExample = g.op('ReduceSum', [g.op('Mul', [y, logProbabilities]), classAxis], {
    keepdims: 0,
  });
  const loss = g.op(
    'Neg',
    [g.op('ReduceMean', [perExample], { keepdims: 0 })],
    {},
    { name: lossName },
  );
  return { loss, logProbabilities };
}

/** The losses the builders emit. */
export type MlpLossKind = 'softmax_cross_entropy' | 'mse' | 'huber';

/** Every {@link MlpLossKind}. */
export const mlpLossKinds: readonly MlpLossKind[] = ['softmax_cross_entropy', 'mse', 'huber'];

/** Outputs of {@link huberLoss}. */
export interface Huber {
  /** Scalar mean over every element of the Huber loss (δ = 1). */
  readonly loss: ValueRef;
  /** `prediction − y` clipped to [−1, 1]: the loss's gradient per element, times the element count. */
  readonly clipped: ValueRef;
}

/**
 * Huber loss with δ = 1, as PyTorch's `HuberLoss()` (mean reduction):
 * `½d²` where `|d| < 1`, `|d| − ½` beyond, so a few far-off targets pull
 * the fit less than under squared error.
 */
export function huberLoss(
  g: GraphBuilder,
  predictions: ValueRef,
  y: ValueRef,
  lossName: string,
): Huber {
  const difference = g.op('Sub', [predictions, y]);
  const size = g.op('Abs', [difference]);
  const one = g.constant(1);
  const half = g.constant(0.5);
  const quadratic = g.op('Mul', [half, g.op('Mul', [difference, difference])]);
  const linear = g.op('Sub', [size, half]);
  const perElement = g.op('Where', [g.op('Less', [size, one]), quadratic, linear]);
  const loss = g.op('ReduceMean', [perElement], { keepdims: 0 }, { name: lossName });
  const clipped = g.op('Max', [g.op('Min', [difference, one]), g.op('Neg', [one])]);
  return { loss, clipped };
}

/** Outputs of {@link meanSquaredError}. */
export interface SquaredError {
  /** Scalar mean over every element (batch × outputs) of `(prediction − y)²`. */
  readonly loss: ValueRef;
  /** `prediction − y`, `[batch, outputs]`. */
  readonly difference: ValueRef;
}

/**
 * Mean squared error over all elements, as PyTorch's `MSELoss()` (mean
 * reduction): the network's last layer is linear, so `predictions` are the
 * logits and `y` holds real-valued targets.
 */
export function meanSquaredError(
  g: GraphBuilder,
  predictions: ValueRef,
  y: ValueRef,
  lossName: string,
): SquaredError {
  const difference = g.op('Sub', [predictions, y]);
  const loss = g.op(
    'ReduceMean',
    [g.op('Mul', [difference, difference])],
    { keepdims: 0 },
    { name: lossName },
  );
  return { loss, difference };
}

/**
 * The mean loss of `kind` on `logits` against `y`, named `loss`: what a loss
 * graph (a validation loss, no update) outputs.
 */
export function meanLoss(
  g: GraphBuilder,
  kind: MlpLossKind,
  logits: ValueRef,
  y: ValueRef,
): ValueRef {
  if (kind === 'mse') return meanSquaredError(g, logits, y, 'loss').loss;
  if (kind === 'huber') return huberLoss(g, logits, y, 'loss').loss;
  return softmaxCrossEntropy(g, logits, y, 'loss').loss;
}
