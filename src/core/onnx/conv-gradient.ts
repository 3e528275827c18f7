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
