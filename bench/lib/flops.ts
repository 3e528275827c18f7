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
import { GraphBuilder, type ValueRef } from '../../src/core/onnx/graph';
import { layerWidths, type MlpSpec } from '../../src/core/onnx/mlp';

/** One matrix product `[m, k] × [k, n]`. */
export interface Matmul {
  readonly m: number;
  readonly k: number;
  readonly n: number;
  /** The layer whose product it is. */
  readonly layer: number;
  /** Which of the layer's products it is. */
  readonly kind: 'forward' | 'weightGrad' | 'inputGrad';
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
    out.push({ m: batch, k: i, n: o, layer, kind: 'forward' });
    out.push({ m: i, k: batch, n: o, layer, kind: 'weightGrad' });
    if (layer > 0) out.push({ m: batch, k: o, n: i, layer, kind: 'inputGrad' });
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
 * A graph of the given matmuls and almost nothing else, laid out as a train
 * step lays them out: per layer one input `X [b, i]`, one weight `W [i, o]`
 * and one output gradient `D [b, o]`, the forward product `X·W` a MatMul,
 * the weight gradient `Xᵀ·D` and the input gradient `D·Wᵀ` Gemms with
 * `transA` / `transB` — the step's own operand shapes, sharing and memory
 * footprint. Every matrix is a constant in the model, so a run copies no
 * operand in, and each product is summed to one number, so it copies none
 * out; the runtime's matmul kernel (MLAS on onnxruntime's CPU and WASM
 * backends) does nearly all the work (the sums add under 1 %). Its one
 * input, `scale` (`[1]`, feed 1), multiplies the sum, so a run has something
 * to feed. Run it with graph optimisations off
 * (`graphOptimizationLevel: 'disabled'`): products of constants would
 * otherwise be folded away when the session is made. Its runs/s ×
 * `matmulFlops` is the bare kernel's speed on the step's products, on that
 * runtime and thread count. Constant weights may be packed once, when the
 * session is made, where a train step's change every run: a best case for
 * the kernel, though a whole step, which keeps its activations hot in cache
 * from one product to the next, can come close to it or pass it.
 */
export function buildMatmulGraph(matmuls: readonly Matmul[]): Uint8Array {
  const g = new GraphBuilder('matmul_ceiling');
  const scale = g.input('scale', 'float32', [1]);
  const operands = new Map<string, ValueRef>();
  const operand = (name: string, rows: number, cols: number) => {
    let ref = operands.get(name);
    if (!ref) {
      ref = g.initializer(name, filled(rows * cols), [rows, cols]);
      operands.set(name, ref);
    }
    return ref;
  };
  let sum: ValueRef | null = null;
  for (const { m, k, n, layer, kind } of matmuls) {
    // In the layer's own sizes: b rows, i inputs, o outputs.
    const [b, i, o] =
      kind === 'forward' ? [m, k, n] : kind === 'weightGrad' ? [k, m, n] : [m, n, k];
    const x = () => operand(`X${layer}`, b, i);
    const w = () => operand(`W${layer}`, i, o);
    const d = () => operand(`D${layer}`, b, o);
    const product =
      kind === 'forward'
        ? g.op('MatMul', [x(), w()])
        : kind === 'weightGrad'
          ? g.op('Gemm', [x(), d()], { transA: 1 })
          : g.op('Gemm', [d(), w()], { transB: 1 });
    const total = g.op('ReduceSum', [product], { keepdims: 0 });
    sum = sum === null ? total : g.op('Add', [sum, total]);
  }
  if (sum === null) throw new RangeError('a matmul graph needs at least one matmul');
  g.output(g.op('Mul', [sum, scale]), 'sum', 'float32', [1]);
  return g.toModel();
}

/** Session options the matmul graph must run with; see `buildMatmulGraph`. */
export const matmulGraphOptions = { graphOptimizationLevel: 'disabled' } as const;

function filled(length: number): Float32Array {
  const data = new Float32Array(length);
  for (let i = 0; i < length; i++) data[i] = ((i % 17) - 8) / 64;
  return data;
}
