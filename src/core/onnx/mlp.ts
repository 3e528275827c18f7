/**
 * The MLP classifier's models, built in code: inference, loss and train step.
 *
 * Idea: one spec (`MlpSpec`) yields every model a training flow needs, all
 * sharing the same forward pass, so what is trained is exactly what is
 * evaluated and exported. Weights live outside the models (the caller owns
 * them) until the end, when `buildMlpInference(spec, weights)` bakes them in
 * as the downloadable artifact. Trade-off: a model is rebuilt (cheap) rather
 * than patched when the weights change.
 */
import { finishInference, type InferenceModel } from './inference.ts';
import { TracingGraphBuilder, type GraphTrace } from './graph-trace.ts';
import { BATCH, declareWeights, forward, meanLoss, type MlpLossKind } from './mlp-layers.ts';
import { mlpWeightLayout, type MlpSpec, type MlpWeights } from './mlp-spec.ts';

export {
  elementCount,
  initMlpWeights,
  layerWidths,
  mlpActivations,
  mlpWeightLayout,
  validateMlpSpec,
  type MlpActivation,
  type MlpSpec,
  type MlpWeights,
  type WeightSlot,
} from './mlp-spec.ts';
export { buildMlpTrainStep } from './mlp-train.ts';
export type { CarriedTensor, TrainStep, TrainStepOptions } from './train-step.ts';
export {
  optimizerStateSlots,
  resumeOptimizerState,
  type OptimizerState,
  type OptimizerStateSlot,
  type StateResumption,
} from './optimizer-state.ts';
export { mlpLossKinds, type MlpLossKind } from './mlp-layers.ts';
export {
  mlpOptimizers,
  type AdamInputs,
  type CarriedRole,
  type MlpOptimizer,
} from './mlp-optim.ts';

/** A built MLP inference model: `x` is `[batch, inputSize]`, both outputs `[batch, outputSize]`. */
export type MlpInference = InferenceModel;

/**
 * Builds the inference model. With `weights`, they are stored in the model as
 * initializers (the trained artifact a person downloads); without, they are
 * graph inputs, so one session serves weights that change every step.
 */
export function buildMlpInference(spec: MlpSpec, weights?: MlpWeights): MlpInference {
  const layout = mlpWeightLayout(spec);
  const g = new TracingGraphBuilder('mlp_inference');
  const x = g.input('x', 'float32', [BATCH, spec.inputSize]);
  const layers = declareWeights(g, layout, weights);
  const { logits } = forward(g, spec, x, layers, 'logits');
  return finishInference(g, x, logits, [BATCH, spec.outputSize], layout, weights);
}

/** A built evaluation model: the train step's loss without the update. */
export interface MlpLoss {
  readonly model: Uint8Array;
  /** The graph's structure, for memory estimates. */
  readonly graph: GraphTrace;
  readonly inputs: {
    readonly x: string;
    readonly y: string;
    readonly weights: Readonly<Record<string, string>>;
  };
  readonly outputs: { readonly loss: string; readonly logits: string };
}

/**
 * Builds the evaluation model: inputs `x`, targets `y` and every weight;
 * outputs the scalar `loss` (mean softmax cross-entropy by default, or mean
 * squared error) and the `logits`. It computes the same loss as the train
 * step, for validation sets and checks.
 */
export function buildMlpLoss(spec: MlpSpec, loss: MlpLossKind = 'softmax_cross_entropy'): MlpLoss {
  const layout = mlpWeightLayout(spec);
  const g = new TracingGraphBuilder(
    loss === 'softmax_cross_entropy' ? 'mlp_loss' : `mlp_loss_${loss}`,
  );
  const x = g.input('x', 'float32', [BATCH, spec.inputSize]);
  const y = g.input('y', 'float32', [BATCH, spec.outputSize]);
  const layers = declareWeights(g, layout);
  const { logits } = forward(g, spec, x, layers, 'logits');
  const value = meanLoss(g, loss, logits, y);
  g.output(value, value.name, 'float32', []);
  g.output(logits, logits.name, 'float32', [BATCH, spec.outputSize]);
  return {
    model: g.toModel(),
    graph: g.trace(),
    inputs: {
      x: x.name,
      y: y.name,
      weights: Object.fromEntries(layout.map((s) => [s.name, s.name])),
    },
    outputs: { loss: value.name, logits: logits.name },
  };
}
