/**
 * A stride-1 'same' convolution's weight gradient, as a Conv itself: with the
 * batch and channel axes of the input swapped (`[channels, batch, …]`) and
 * the output gradient `dz` as the kernel (`[filters, batch, …]`), a Conv
 * whose kernel spans the whole signal or image gives `[channels, filters,
 * k…]` — `Σ_b Σ_i dz[b,f,i] · x[b,c,i+u−pad]` — which one Transpose turns
 * into `dW [filters, channels, k…]`. Only Conv and Transpose, which every
 * execution provider runs. Trade-off: a kernel the size of the input is a
 * shape kernels are not tuned for; for the small inputs these blocks take,
 * it costs little.
 */
import type { TracingGraphBuilder } from './graph-trace.ts';
import type { ValueRef } from './graph.ts';
import { need } from './block-weights.ts';
import { scalar } from './mlp-activations.ts';

/**
 * `dW` of a conv over `input [batch, channels, …sides]` whose output
 * gradient is `dz [batch, filters, …sides]`, padded by `pads` as the
 * forward conv was.
 */
export function convWeightGradient(
  g: TracingGraphBuilder,
  input: ValueRef,
  dz: ValueRef,
  sides: readonly number[],
  pads: readonly number[],
): ValueRef {
  const swap = { perm: [1, 0, ...sides.map((_, i) => i + 2)] };
  const swapped = g.op('Conv', [g.op('Transpose', [input], swap), g.op('Transpose', [dz], swap)], {
    kernel_shape: [...sides],
    pads: [...pads],
  });
  return g.op('Transpose', [swapped], swap);
}

/**
 * Every gradient of a conv block — one 'same' conv `z` over `x`, ReLU, the
 * mean over its positions (`pooled`), a linear head — from the logits'
 * gradient down: the head's (`head.W`, `head.b`); the mean's, which gives
 * each position 1/positions of the pooled gradient; ReLU's, kept where `z`
 * was positive; and the conv's (`conv.b`, `conv.W`), padded by `pads`.
 */
export function meanPooledConvGradients(
  g: TracingGraphBuilder,
  w: ReadonlyMap<string, ValueRef>,
  pass: { readonly x: ValueRef; readonly z: ValueRef; readonly pooled: ValueRef },
  dLogits: ValueRef,
  sides: readonly number[],
  pads: readonly number[],
): Map<string, ValueRef> {
  const sideAxes = sides.map((_, i) => i + 2);
  const batchAxis = g.constant([0], 'int64');
  const gradients = new Map([
    ['head.W', g.op('Gemm', [pass.pooled, dLogits], { transA: 1 })],
    ['head.b', g.op('ReduceSum', [dLogits, batchAxis], { keepdims: 0 })],
  ]);
  const dPooled = g.op('Mul', [
    g.op('Gemm', [dLogits, need(w, 'head.W')], { transB: 1 }),
    scalar(g, 1 / sides.reduce((a, b) => a * b, 1)),
  ]);
  const dPerPosition = g.op('Unsqueeze', [dPooled, g.constant(sideAxes, 'int64')]);
  const dz = g.op('Where', [g.op('Greater', [pass.z, scalar(g, 0)]), dPerPosition, scalar(g, 0)]);
  gradients.set(
    'conv.b',
    g.op('ReduceSum', [dz, g.constant([0, ...sideAxes], 'int64')], { keepdims: 0 }),
  );
  gradients.set('conv.W', convWeightGradient(g, pass.x, dz, sides, pads));
  return gradients;
}
