/**
 * The MLP train step as one ONNX graph: forward, loss, backward and the
 * optimizer update, weights in → updated weights out.
 *
 * Idea: onnxruntime-web has no training API, so we write the backward pass by
 * hand with ordinary operators (Gemm with transA/transB, ReduceSum, Where …)
 * that every execution provider runs. The caller keeps the weights and feeds
 * each step's outputs into the next step; the session itself is stateless, so
 * one session serves any batch size and any number of concurrent runs.
 * Trade-off: the gradient rules are ours to get right (the tests check them
 * against finite differences), and weights cross the session boundary every
 * step, which for small MLPs costs far less than the step itself.
 */
import { GraphBuilder, type ValueRef } from './graph.ts';
import { BATCH, declareWeights, forward, softmaxCrossEntropy } from './mlp-layers.ts';
import { mlpWeightLayout, type MlpSpec } from './mlp-spec.ts';

/** How the train step updates the weights and what it reports. */
export interface MlpTrainStepOptions {
  /** `sgd`: `W ← W − lr·g`. `momentum`: `v ← μ·v + g; W ← W − lr·v`. */
  readonly optimizer: 'sgd' | 'momentum';
  readonly loss: 'softmax_cross_entropy';
  /** Also output each raw gradient as `grad.<weight>` (for gradient checks and diagnostics). */
  readonly emitGradients?: boolean;
}

/** A built train step: the model bytes and the names of its inputs and outputs. */
export interface MlpTrainStep {
  readonly model: Uint8Array;
  readonly inputs: {
    /** `[batch, inputSize]` float32. */
    readonly x: string;
    /** One-hot (or any row-stochastic) targets, `[batch, outputSize]` float32. */
    readonly y: string;
    /** Learning rate, a float32 scalar or `[1]`. */
    readonly lr: string;
    /** Momentum coefficient μ (scalar or `[1]`), or null for SGD. */
    readonly momentum: string | null;
    /** Weight name → graph input name. */
    readonly weights: Readonly<Record<string, string>>;
    /** Weight name → velocity input name (momentum only; zeros to start). */
    readonly velocities: Readonly<Record<string, string>>;
  };
  readonly outputs: {
    /** Scalar mean softmax cross-entropy of the batch, before the update. */
    readonly loss: string;
    /** Weight name → updated weight output name. */
    readonly weights: Readonly<Record<string, string>>;
    /** Weight name → updated velocity output name (momentum only). */
    readonly velocities: Readonly<Record<string, string>>;
    /** Weight name → gradient output name (with `emitGradients` only). */
    readonly gradients: Readonly<Record<string, string>>;
  };
}

/**
 * Builds the train-step model for `spec`. The batch dimension is symbolic, so
 * one session serves every batch size; the loss is averaged over the batch.
 */
export function buildMlpTrainStep(spec: MlpSpec, options: MlpTrainStepOptions): MlpTrainStep {
  // A guard for options that come from untyped data.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
  if (options.loss !== 'softmax_cross_entropy')
    throw new RangeError(`unknown loss: ${String(options.loss)}`);
  const layout = mlpWeightLayout(spec);
  const momentum = options.optimizer === 'momentum';
  const g = new GraphBuilder(`mlp_train_step_${options.optimizer}`);

  const x = g.input('x', 'float32', [BATCH, spec.inputSize]);
  const y = g.input('y', 'float32', [BATCH, spec.outputSize]);
  const lr = g.input('lr', 'float32');
  const mu = momentum ? g.input('momentum', 'float32') : null;
  const layers = declareWeights(g, layout);
  const velocityIn = new Map<string, ValueRef>();
  if (momentum)
    for (const slot of layout)
      velocityIn.set(slot.name, g.input(`velocity.${slot.name}`, 'float32', slot.dims));

  const trace = forward(g, spec, x, layers);
  const { loss, logProbabilities } = softmaxCrossEntropy(g, trace.logits, y, 'loss');

  // d loss / d logits = (softmax · Σy − y) / batch. Σy is 1 for one-hot rows;
  // keeping it makes the rule exact for soft targets too.
  const batch = g.op(
    'Cast',
    [g.op('Gather', [g.op('Shape', [x]), g.constant(0, 'int64')], { axis: 0 })],
    { to: 1 },
  );
  const ySum = g.op('ReduceSum', [y, g.constant([1], 'int64')], { keepdims: 1 });
  const probabilities = g.op('Exp', [logProbabilities]);
  let dz = g.op('Div', [g.op('Sub', [g.op('Mul', [probabilities, ySum]), y]), batch]);

  const gradients = new Map<string, ValueRef>();
  const gradName = (w: string): { name?: string } =>
    options.emitGradients === true ? { name: `grad.${w}` } : {};
  const batchAxis = g.constant([0], 'int64');
  // Created on first use, so a model never carries an unused constant.
  let zero: ValueRef | undefined;
  let one: ValueRef | undefined;
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
    // `input` is this layer's input, i.e. the previous layer's activation h.
    dz =
      spec.activation === 'relu'
        ? g.op('Where', [g.op('Greater', [input, (zero ??= g.constant(0))]), dh, zero]) // relu(z) > 0 ⇔ z > 0
        : g.op('Mul', [dh, g.op('Sub', [(one ??= g.constant(1)), g.op('Mul', [input, input])])]); // tanh' = 1 − h²
  }

  const weightRefs = new Map(
    layers.flatMap((p) => [[p.W.name, p.W] as const, [p.b.name, p.b] as const]),
  );
  const weightsOut: Record<string, string> = {};
  const velocitiesOut: Record<string, string> = {};
  const gradientsOut: Record<string, string> = {};
  const updates: { value: ValueRef; dims: readonly number[] }[] = [];
  const velocityUpdates: typeof updates = [];
  const gradientOutputs: typeof updates = [];
  for (const slot of layout) {
    const grad = gradients.get(slot.name) as ValueRef;
    let step = grad;
    if (mu !== null) {
      const v = velocityIn.get(slot.name) as ValueRef;
      step = g.op('Add', [g.op('Mul', [mu, v]), grad], {}, { name: `next.velocity.${slot.name}` });
      velocitiesOut[slot.name] = step.name;
      velocityUpdates.push({ value: step, dims: slot.dims });
    }
    const w = weightRefs.get(slot.name) as ValueRef;
    const next = g.op('Sub', [w, g.op('Mul', [lr, step])], {}, { name: `next.${slot.name}` });
    weightsOut[slot.name] = next.name;
    updates.push({ value: next, dims: slot.dims });
    if (options.emitGradients === true) {
      gradientsOut[slot.name] = grad.name;
      gradientOutputs.push({ value: grad, dims: slot.dims });
    }
  }

  g.output(loss, loss.name, 'float32', []);
  for (const o of [...updates, ...velocityUpdates, ...gradientOutputs])
    g.output(o.value, o.value.name, 'float32', o.dims);

  const names = (prefix: string): Record<string, string> =>
    Object.fromEntries(layout.map((s) => [s.name, `${prefix}${s.name}`]));
  return {
    model: g.toModel(),
    inputs: {
      x: x.name,
      y: y.name,
      lr: lr.name,
      momentum: mu?.name ?? null,
      weights: names(''),
      velocities: momentum ? names('velocity.') : {},
    },
    outputs: {
      loss: loss.name,
      weights: weightsOut,
      velocities: velocitiesOut,
      gradients: gradientsOut,
    },
  };
}
