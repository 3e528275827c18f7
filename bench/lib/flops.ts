/**
 * Floating-point work of a train step, counted from its matrix products.
 *
 * Idea: an MLP train step is matmuls plus a little elementwise work, so
 * `2·m·k·n` per matmul, forward and backward, is the step's useful work and
 * steps/s × that is the GFLOP/s it achieved. The elementwise ops (bias,
 * activation, softmax, the update) are left out: they are a few percent of
 * the arithmetic at these widths, so a row's GFLOP/s is slightly low, never
 * high. The same matmuls, alone in one graph, are the bare-kernel ceiling
 * the train rows are read against.
 */
import { GraphBuilder } from '../../src/core/onnx/graph';
import { layerWidths, type MlpSpec } from '../../src/core/onnx/mlp';

/** One matrix product `[m, k] × [k, n]`. */
export interface Matmul {
  readonly m: number;
  readonly k: number;
  readonly n: number;
  /** Which product of the step it is, for the graph's names. */
  readonly what: string;
}

/**
 * The matmuls of one MLP train step on a batch: per layer of `i` inputs and
 * `o` outputs, the forward product `[b, i] × [i, o]`, the weight gradient
 * `[i, b] × [b, o]` and, past the first layer (the input needs none), the
 * gradient of the layer's input `[b, o] × [o, i]`.
 */
export function mlpTrainMatmuls(spec: MlpSpec, batch: number): Matmul[] {
  const widths = layerWidths(spec);
  const out: Matmul[] = [];
  for (let layer = 0; layer + 1 < widths.length; layer++) {
    const i = widths[layer]!;
    const o = widths[layer + 1]!;
    out.push({ m: batch, k: i, n: o, what: `forward${layer}` });
    out.push({ m: i, k: batch, n: o, what: `weightGrad${layer}` });
    if (layer > 0) out.push({ m: batch, k: o, n: i, what: `inputGrad${layer}` });
  }
  return out;
}

/** `2·m·k·n` summed: multiply-adds counted as two operations. */
export function matmulFlops(matmuls: readonly Matmul[]): number {
  return matmuls.reduce((sum, { m, k, n }) => sum + 2 * m * k * n, 0);
}

/** FLOP of one MLP train step (its matmuls). */
export const mlpTrainFlops = (spec: MlpSpec, batch: number): number =>
  matmulFlops(mlpTrainMatmuls(spec, batch));

/** GFLOP/s of `flopsPerStep` done `stepsPerSecond` times a second. */
export const gflops = (flopsPerStep: number, stepsPerSecond: number): number =>
  (flopsPerStep * stepsPerSecond) / 1e9;

/**
 * A graph of the given matmuls and nothing else: each `MatMul` reads two
 * graph inputs and is a graph output, so the runtime's matmul kernel (MLAS
 * on onnxruntime's CPU and WASM backends) does all the work. Its runs/s ×
 * `matmulFlops` is the ceiling a train step of the same products can reach
 * on that runtime and thread count.
 */
export function buildMatmulGraph(matmuls: readonly Matmul[]): Uint8Array {
  const g = new GraphBuilder('matmul_ceiling');
  for (const { m, k, n, what } of matmuls) {
    const a = g.input(`${what}.a`, 'float32', [m, k]);
    const b = g.input(`${what}.b`, 'float32', [k, n]);
    g.output(g.op('MatMul', [a, b]), `${what}.out`, 'float32', [m, n]);
  }
  return g.toModel();
}

/** Inputs for `buildMatmulGraph`: every matrix filled with small values. */
export function matmulInputs(
  matmuls: readonly Matmul[],
): Record<string, { data: Float32Array; dims: number[] }> {
  const feeds: Record<string, { data: Float32Array; dims: number[] }> = {};
  for (const { m, k, n, what } of matmuls) {
    feeds[`${what}.a`] = { data: filled(m * k), dims: [m, k] };
    feeds[`${what}.b`] = { data: filled(k * n), dims: [k, n] };
  }
  return feeds;
}

function filled(length: number): Float32Array {
  const data = new Float32Array(length);
  for (let i = 0; i < length; i++) data[i] = ((i % 17) - 8) / 64;
  return data;
}
