import { describe, expect, it } from 'vitest';
import { isFlowbenchError } from '../errors';
import type { Tensor } from '../runtime/tensor-runtime';
import { describeOutput, outputNumbers, outputValue } from './output-values';

/** An output as the runtime hands it over: float32 data, exact values beside. */
function given(
  type: string,
  exact: Float64Array | BigInt64Array,
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
});
