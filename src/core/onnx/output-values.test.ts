import { describe, expect, it } from 'vitest';
import { isFlowbenchError } from '../errors';
import type { Tensor } from '../runtime/tensor-runtime';
import { describeOutput, outputNumbers, outputValue } from './output-values';

/** An output as the runtime hands it over: float32 data, exact values beside. */
function given(
  type: string,
  exact: Float64Array | BigInt64Array | BigUint64Array,
  dims: number[] = [exact.length],
): Tensor {
  return {
    type: 'float32',
    data: Float32Array.from(exact as ArrayLike<number | bigint>, (v) => Number(v)),
    dims,
    exact: { type, data: exact },
  };
}

describe('a model’s outputs in their own types', () => {
  it('reads int64 as numbers while safe and as exact digits beyond ±2^53', () => {
    const ids = given('int64', BigInt64Array.from([16000001n, -(2n ** 53n) - 1n, 2n ** 62n]));
    expect([0, 1, 2].map((i) => outputValue(ids, i))).toEqual([
      16000001,
      '-9007199254740993',
      '4611686018427387904',
    ]);
    // Float32 would have said 16000000.
    expect(describeOutput({ name: 'ids', type: 'int64', shape: [3] }, ids)).toBe(
      'ids: int64 [3] = [16000001, -9007199254740993, 4611686018427387904]',
    );
  });

  it('emits safe int64 as numbers and refuses one beyond ±2^53, naming the output and value', () => {
    expect(Array.from(outputNumbers('n', given('int64', BigInt64Array.from([3n, -7n]))))).toEqual([
      3, -7,
    ]);
    try {
      outputNumbers('ids', given('int64', BigInt64Array.from([1n, 2n ** 53n + 1n])));
      throw new Error('expected a refusal');
    } catch (error) {
      expect(isFlowbenchError(error, 'model-output')).toBe(true);
      expect((error as Error).message).toBe(
        "the model's output 'ids' holds 9007199254740993 (int64), beyond ±2^53: no number holds it exactly",
      );
    }
  });

  it('reads bool as true/false, float16 as its numbers, and says when a type differs from the declared', () => {
    const flags = given('bool', Float64Array.from([1, 0, 1, 1, 0]), [5, 1]);
    expect(describeOutput({ name: 'speech', type: 'bool', shape: ['batch', 1] }, flags)).toBe(
      'speech: bool [5×1] = [true, false, true, true, …]',
    );
    expect(Array.from(outputNumbers('speech', flags))).toEqual([1, 0, 1, 1, 0]);
    const half = given('float16', Float64Array.from([0.0999755859375, 65504]));
    expect(describeOutput({ name: 'p', type: 'float16', shape: [2] }, half)).toBe(
      'p: float16 [2] = [0.09998, 65500]',
    );
    const plain: Tensor = { type: 'float32', data: Float32Array.from([0.5]), dims: [1] };
    expect(describeOutput({ name: 'q', type: 'float64', shape: [1] }, plain)).toBe(
      'q: float64 as float32 [1] = [0.5]',
    );
  });

  it('reads float64 and the smaller integers as the numbers they are, where float32 would round them', () => {
    const precise = given('float64', Float64Array.of(0.1, 1e300));
    // Emitted as the doubles themselves: float32 holds neither.
    expect(Array.from(outputNumbers('p', precise))).toEqual([0.1, 1e300]);
    expect(describeOutput({ name: 'p', type: 'float64', shape: [2] }, precise)).toBe(
      'p: float64 [2] = [0.1, 1e+300]',
    );
    const counts = given('uint32', Float64Array.of(2 ** 24 + 1, 4294967295));
    expect(describeOutput({ name: 'n', type: 'uint32', shape: [2] }, counts)).toBe(
      'n: uint32 [2] = [16777217, 4294967295]',
    );
    const small = given('int16', Float64Array.of(-32768, 7), [1, 2]);
    expect(describeOutput({ name: 'm', type: 'int16', shape: [1, 2] }, small)).toBe(
      'm: int16 [1×2] = [-32768, 7]',
    );
    expect(outputValue(given('int8', Float64Array.of(-128)), 0)).toBe(-128);
  });

  it('reads uint64 as numbers while safe and as exact digits beyond, refusing to emit those', () => {
    const ids = given('uint64', BigUint64Array.of(42n, 2n ** 64n - 1n));
    expect(describeOutput({ name: 'ids', type: 'uint64', shape: [2] }, ids)).toBe(
      'ids: uint64 [2] = [42, 18446744073709551615]',
    );
    expect(Array.from(outputNumbers('ids', given('uint64', BigUint64Array.of(42n))))).toEqual([42]);
    expect(() => outputNumbers('ids', ids)).toThrow(
      "the model's output 'ids' holds 18446744073709551615 (uint64), beyond ±2^53: no number holds it exactly",
    );
  });
});
