import { describe, expect, it } from 'vitest';
import type { ConstantType } from '../../src/core/runtime/tensor-runtime';
import { engineData, exactValues, fromHalfBits, halfBits, ortConstantData } from './ort-dtypes';

describe('element types at the onnxruntime boundary', () => {
  it('writes float16 bits that read back as the nearest half, rounding ties to even', () => {
    expect(halfBits(1)).toBe(0x3c00);
    expect(halfBits(-2)).toBe(0xc000);
    expect(halfBits(65504)).toBe(0x7bff);
    expect(halfBits(1e6)).toBe(0x7c00); // beyond the range: Infinity
    expect(halfBits(2 ** -24)).toBe(0x0001); // the smallest subnormal
    expect(halfBits(1 + 2 ** -11)).toBe(0x3c00); // a tie: to the even mantissa
    expect(halfBits(1 + 3 * 2 ** -11)).toBe(0x3c02);
    for (const v of [0, 0.5, -0.333, 3.14159, 1000.5, 6.1e-5, -7e-7])
      // Within half a unit in the last place: 2^-11 relative, 2^-25 among subnormals.
      expect(Math.abs(fromHalfBits(halfBits(v)) - v)).toBeLessThanOrEqual(
        Math.max(Math.abs(v) * 2 ** -11, 2 ** -25),
      );
  });

  it('makes the typed array onnxruntime takes for each constant type', () => {
    const made = (type: 'int64' | 'bool' | 'uint8' | 'float16' | 'int32', values: number[]) =>
      ortConstantData({ location: 'constant', type, dims: [values.length], values });
    expect(made('int64', [16000, -(2 ** 53) + 1])).toEqual(
      BigInt64Array.from([16000n, -(2n ** 53n) + 1n]),
    );
    expect(made('bool', [1, 0])).toEqual(Uint8Array.from([1, 0]));
    expect(made('uint8', [255])).toEqual(Uint8Array.from([255]));
    expect(made('float16', [1])).toEqual(Uint16Array.from([0x3c00]));
    expect(made('int32', [-3])).toEqual(Int32Array.from([-3]));
    // An int64 array's bigints go in as they are, past 2^53 (a double would round this one).
    const big = BigInt64Array.of(2n ** 53n + 1n);
    expect(ortConstantData({ location: 'constant', type: 'int64', dims: [1], values: big })).toBe(
      big,
    );
  });

  it('makes the typed array onnxruntime takes for float64, the smaller integers and uint64', () => {
    const made = (type: ConstantType, values: number[]) =>
      ortConstantData({ location: 'constant', type, dims: [values.length], values });
    // A double's digits past float32's go in as they are.
    expect(made('float64', [0.1, 1e300])).toEqual(Float64Array.of(0.1, 1e300));
    expect(made('int8', [-128, 127])).toEqual(Int8Array.of(-128, 127));
    expect(made('int16', [-32768, 32767])).toEqual(Int16Array.of(-32768, 32767));
    expect(made('uint16', [65535])).toEqual(Uint16Array.of(65535));
    expect(made('uint32', [4294967295])).toEqual(Uint32Array.of(4294967295));
    expect(made('uint64', [2 ** 53 - 1])).toEqual(BigUint64Array.of(2n ** 53n - 1n));
    // A uint64 array's bigints go in as they are, past 2^53.
    const big = BigUint64Array.of(2n ** 64n - 1n);
    expect(ortConstantData({ location: 'constant', type: 'uint64', dims: [1], values: big })).toBe(
      big,
    );
  });

  it('reads outputs of other types as float32 numbers, int32 and float32 as they are', () => {
    const f = Float32Array.from([1.5]);
    const i = Int32Array.from([7]);
    expect(engineData('float32', f)).toBe(f);
    expect(engineData('int32', i)).toBe(i);
    expect(engineData('int64', BigInt64Array.from([3n, -4n]))).toEqual(Float32Array.from([3, -4]));
    expect(engineData('bool', Uint8Array.from([1, 0]))).toEqual(Float32Array.from([1, 0]));
    expect(engineData('float16', Uint16Array.from([0x3c00, 0xc000]))).toEqual(
      Float32Array.from([1, -2]),
    );
    expect(() => engineData('string', ['a'])).toThrow(
      'an output of type string cannot be read as numbers',
    );
  });

  it('keeps the exact values of an output of another type: bigints as given, the rest as doubles', () => {
    expect(exactValues('float32', Float32Array.from([1]))).toBeUndefined();
    expect(exactValues('int32', Int32Array.from([1]))).toBeUndefined();
    const big = BigInt64Array.from([2n ** 53n + 1n]);
    expect(exactValues('int64', big)).toEqual({ type: 'int64', data: big });
    expect(exactValues('float16', Uint16Array.from([0x3c00, 0x2e66]))).toEqual({
      type: 'float16',
      data: Float64Array.from([1, 0.0999755859375]),
    });
    expect(exactValues('bool', Uint8Array.from([1, 0]))).toEqual({
      type: 'bool',
      data: Float64Array.from([1, 0]),
    });
    expect(exactValues('float64', Float64Array.from([0.1]))?.data[0]).toBe(0.1);
  });
});
