/**
 * Layer normalisation over the last axis, forward and backward, written
 * from elementwise ops and reductions.
 *
 * Idea: `y = γ ⊙ (x − μ)/√(σ² + ε) + β` per vector, with μ and σ² its mean
 * and (biased) variance. The backward pass reuses the forward's normalised
 * value `x̂` and `1/√(σ² + ε)`: with `d̂ = dy ⊙ γ`,
 * `dx = (d̂ − mean(d̂) − x̂ ⊙ mean(d̂ ⊙ x̂)) / √(σ² + ε)`.
 * Trade-off: ONNX has a LayerNormalization op (opset 17), but its gradient
 * is not one, and not every execution provider runs it the same; six
 * plain ops run everywhere and keep forward and backward visibly paired.
 */
import type { ValueRef } from './graph.ts';
import type { TracingGraphBuilder } from './graph-trace.ts';
import { scalar } from './mlp-activations.ts';

/** Added to the variance so a constant vector normalises to 0, not NaN. */
export const LAYER_NORM_EPSILON = 1e-5;

/** What the backward pass reads from the forward pass. */
export interface LayerNormTrace {
  /** `(x − μ)/√(σ² + ε)`. */
  readonly normalised: ValueRef;
  /** `1/√(σ² + ε)`, one per vector (the last axis kept as 1). */
  readonly inverseStd: ValueRef;
  /** `γ ⊙ x̂ + β`. */
  readonly y: ValueRef;
}

/** Normalises `x` along its last axis, then scales by `gamma` and shifts by `beta`. */
export function layerNorm(
  g: TracingGraphBuilder,
  x: ValueRef,
  gamma: ValueRef,
  beta: ValueRef,
): LayerNormTrace {
  const mean = g.op('ReduceMean', [x], { axes: [-1], keepdims: 1 });
  const centred = g.op('Sub', [x, mean]);
  const variance = g.op('ReduceMean', [g.op('Mul', [centred, centred])], {
    axes: [-1],
    keepdims: 1,
  });
  const inverseStd = g.op('Reciprocal', [
    g.op('Sqrt', [g.op('Add', [variance, scalar(g, LAYER_NORM_EPSILON)])]),
  ]);
  const normalised = g.op('Mul', [centred, inverseStd]);
  const y = g.op('Add', [g.op('Mul', [normalised, gamma]), beta]);
  return { normalised, inverseStd, y };
}

/** Gradients of a layer norm: of its input, and of `gamma` and `beta` summed over `sumAxes`. */
export interface LayerNormGradients {
  readonly dx: ValueRef;
  readonly dGamma: ValueRef;
  readonly dBeta: ValueRef;
}

/**
 * The backward pass of {@link layerNorm} given `dy`; `sumAxes` are every
 * axis but the last (where γ and β were broadcast).
 */
export function layerNormBackward(
  g: TracingGraphBuilder,
  trace: LayerNormTrace,
  gamma: ValueRef,
  dy: ValueRef,
  sumAxes: readonly number[],
): LayerNormGradients {
  const axes = g.constant([...sumAxes], 'int64');
  const dGamma = g.op('ReduceSum', [g.op('Mul', [dy, trace.normalised]), axes], { keepdims: 0 });
  const dBeta = g.op('ReduceSum', [dy, axes], { keepdims: 0 });
  const dNormalised = g.op('Mul', [dy, gamma]);
  const meanOf = (v: ValueRef) => g.op('ReduceMean', [v], { axes: [-1], keepdims: 1 });
  const along = g.op('Mul', [
    trace.normalised,
    meanOf(g.op('Mul', [dNormalised, trace.normalised])),
  ]);
  const dx = g.op('Mul', [
    g.op('Sub', [g.op('Sub', [dNormalised, meanOf(dNormalised)]), along]),
    trace.inverseStd,
  ]);
  return { dx, dGamma, dBeta };
}
