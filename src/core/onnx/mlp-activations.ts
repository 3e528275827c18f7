/**
 * Hidden-layer activations of the MLP, forward and backward, as ONNX ops.
 *
 * Idea: each activation is written twice, once as the function and once as
 * its derivative, side by side, so adding one means writing both in one
 * place (and the finite-difference tests check every pair). GELU is the tanh
 * approximation `0.5·z·(1 + tanh(√(2/π)·(z + 0.044715·z³)))` (as GPT-2 and
 * PyTorch's `approximate='tanh'`): opset 17 has no `Gelu` op, and `Tanh`
 * runs on every execution provider, where `Erf` is less certain. Trade-off:
 * the backward pass recomputes `tanh(u)` from `z` rather than keeping it
 * alive from the forward pass (a few ops more, one tensor less).
 */
import type { GraphBuilder, ValueRef } from './graph.ts';
import type { MlpActivation } from './mlp-spec.ts';

const scalars = new WeakMap<GraphBuilder, Map<number, ValueRef>>();

/** A float32 scalar constant, stored once per value per graph. */
export function scalar(g: GraphBuilder, value: number): ValueRef {
  let byValue = scalars.get(g);
  if (byValue === undefined) {
    byValue = new Map();
    scalars.set(g, byValue);
  }
  let ref = byValue.get(value);
  if (ref === undefined) {
    ref = g.constant(value);
    byValue.set(value, ref);
  }
  return ref;
}

const GELU_C = Math.sqrt(2 / Math.PI);
const GELU_K = 0.044715;

/** `tanh(√(2/π)·(z + 0.044715·z³))`, shared by GELU and its derivative. */
function geluTanh(g: GraphBuilder, z: ValueRef, z2: ValueRef): ValueRef {
  const cubic = g.op('Mul', [g.op('Mul', [z2, z]), scalar(g, GELU_K)]);
  return g.op('Tanh', [g.op('Mul', [g.op('Add', [z, cubic]), scalar(g, GELU_C)])]);
}

/** `h = act(z)`. */
export function activate(g: GraphBuilder, kind: MlpActivation, z: ValueRef): ValueRef {
  switch (kind) {
    case 'relu':
      return g.op('Relu', [z]);
    case 'tanh':
      return g.op('Tanh', [z]);
    case 'gelu': {
      const t = geluTanh(g, z, g.op('Mul', [z, z]));
      return g.op('Mul', [g.op('Mul', [z, scalar(g, 0.5)]), g.op('Add', [t, scalar(g, 1)])]);
    }
  }
}

/**
 * `dL/dz = dL/dh · act'(z)`, given the pre-activation `z` and the activation
 * `h = act(z)` of the same layer (each rule reads whichever is cheaper).
 */
export function activationGradient(
  g: GraphBuilder,
  kind: MlpActivation,
  dh: ValueRef,
  z: ValueRef,
  h: ValueRef,
): ValueRef {
  switch (kind) {
    case 'relu': // relu(z) > 0 ⇔ z > 0
      return g.op('Where', [g.op('Greater', [h, scalar(g, 0)]), dh, scalar(g, 0)]);
    case 'tanh': // tanh' = 1 − h²
      return g.op('Mul', [dh, g.op('Sub', [scalar(g, 1), g.op('Mul', [h, h])])]);
    case 'gelu': {
      // gelu'(z) = 0.5·(1 + t) + 0.5·z·(1 − t²)·√(2/π)·(1 + 3·0.044715·z²)
      const z2 = g.op('Mul', [z, z]);
      const t = geluTanh(g, z, z2);
      const outer = g.op('Mul', [g.op('Add', [t, scalar(g, 1)]), scalar(g, 0.5)]);
      const sech2 = g.op('Sub', [scalar(g, 1), g.op('Mul', [t, t])]);
      const inner = g.op('Add', [g.op('Mul', [z2, scalar(g, 3 * GELU_K)]), scalar(g, 1)]);
      const slope = g.op('Mul', [
        g.op('Mul', [g.op('Mul', [z, sech2]), inner]),
        scalar(g, 0.5 * GELU_C),
      ]);
      return g.op('Mul', [dh, g.op('Add', [outer, slope])]);
    }
  }
}
