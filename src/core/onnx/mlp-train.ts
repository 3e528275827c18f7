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
import type { TracingGraphBuilder } from './graph-trace.ts';
import { activationGradient } from './mlp-activations.ts';
import { BATCH, forward, layersOf, type LayerParams, type ForwardTrace } from './mlp-layers.ts';
import { mlpWeightLayout, type MlpSpec } from './mlp-spec.ts';
import {
  lossWithGradient,
  startTrainStep,
  type TrainStep,
  type TrainStepOptions,
} from './train-step.ts';

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
export function buildMlpTrainStep(spec: MlpSpec, options: TrainStepOptions): TrainStep {
  const { g, x, y, weights, finish } = startTrainStep('mlp', options, () => mlpWeightLayout(spec), {
    x: [BATCH, spec.inputSize],
    y: [BATCH, spec.outputSize],
  });
  const layers = layersOf([...weights.values()]);

  const trace = forward(g, spec, x, layers);
  const { loss, dLogits } = lossWithGradient(g, options.loss, trace.logits, y, spec.outputSize);
  const gradients = backward(g, spec, layers, trace, dLogits, options.emitGradients === true);
  return finish(loss, gradients);
}
