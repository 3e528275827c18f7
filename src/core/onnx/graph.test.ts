import * as ort from 'onnxruntime-web';
import { describe, expect, it } from 'vitest';
import { float, GraphBuilder, tensor } from './graph.ts';

async function run(
  model: Uint8Array,
  feeds: Record<string, ort.Tensor>,
): Promise<Record<string, ort.Tensor>> {
  const session = await ort.InferenceSession.create(model);
  try {
    return await session.run(feeds);
  } finally {
    await session.release();
  }
}

describe('GraphBuilder + encodeModel in onnxruntime-web', () => {
  it('runs a Gemm model with a dynamic batch and computes the right numbers', async () => {
    // y = 0.5 · x · Wᵀ + b, with W stored as [out, in] and transB = 1.
    const g = new GraphBuilder('gemm');
    const x = g.input('x', 'float32', ['batch', 3]);
    const w = g.initializer('w', Float32Array.from([1, 2, 3, -1, 0, 4]), [2, 3]);
    const b = g.input('b', 'float32', [2]);
    const y = g.op('Gemm', [x, w, b], { transB: 1, alpha: float(0.5) });
    g.output(y, 'y', 'float32', ['batch', 2]);
    const model = g.toModel();

    for (const rows of [1, 4]) {
      const xs = Float32Array.from({ length: rows * 3 }, (_, i) => i - 2);
      const out = await run(model, {
        x: new ort.Tensor('float32', xs, [rows, 3]),
        b: new ort.Tensor('float32', Float32Array.from([10, -10]), [2]),
      });
      const expected = Array.from({ length: rows }, (_, r) => {
        const row = [0, 1, 2].map((k) => xs[r * 3 + k] as number);
        const dot = (wRow: number[]) => row.reduce((s, v, k) => s + v * (wRow[k] as number), 0);
        return [0.5 * dot([1, 2, 3]) + 10, 0.5 * dot([-1, 0, 4]) - 10];
      }).flat();
      expect(out.y?.dims).toEqual([rows, 2]);
      expect(Array.from(out.y?.data as Float32Array)).toEqual(expected);
    }
  });

  it('encodes int, ints, float, tensor attributes, int64 constants and omitted inputs', async () => {
    const g = new GraphBuilder('attrs');
    const x = g.input('x', 'float32', [2, 3]);
    const offset = g.op('Constant', [], { value: tensor(Float32Array.from([1, 2, 3]), [3]) });
    const shifted = g.op('Add', [x, offset]);
    // Clip with min omitted (null input) and max given.
    const clipped = g.op('Clip', [shifted, null, g.constant(4.5)]);
    const summed = g.op('ReduceSum', [clipped, g.constant([1], 'int64')], { keepdims: 0 });
    const transposed = g.op('Transpose', [clipped], { perm: [1, 0] });
    const scaled = g.op('LeakyRelu', [g.op('Neg', [summed])], { alpha: float(0.25) });
    g.output(scaled, 'scaled', 'float32', [2]);
    g.output(transposed, 'transposed', 'float32', [3, 2]);
    const out = await run(g.toModel(), {
      x: new ort.Tensor('float32', Float32Array.from([0, 1, 2, 3, 4, 5]), [2, 3]),
    });
    // x + offset = [[1,3,5],[4,6,8]] → clip ≤ 4.5 = [[1,3,4.5],[4,4.5,4.5]]
    expect(Array.from(out.transposed?.data as Float32Array)).toEqual([1, 4, 3, 4.5, 4.5, 4.5]);
    expect(Array.from(out.scaled?.data as Float32Array)).toEqual([-8.5 * 0.25, -13 * 0.25]);
  });

  it('refuses duplicate names, non-integer int attributes and mis-sized tensors', () => {
    const g = new GraphBuilder('bad');
    const x = g.input('x', 'float32', [1]);
    expect(() => g.input('x', 'float32', [1])).toThrow(/already used/);
    expect(() => g.op('Gemm', [x, x], { alpha: 0.5 })).toThrow(/not an integer/);
    expect(() => g.initializer('w', new Float32Array(5), [2, 3])).toThrow(/6 elements/);
  });

  it('generates names that never collide with explicit ones', () => {
    const g = new GraphBuilder('names');
    const x = g.input('relu_0', 'float32', [1]);
    const a = g.op('Relu', [x]);
    const b = g.op('Relu', [a]);
    expect(new Set([x.name, a.name, b.name]).size).toBe(3);
  });
});
