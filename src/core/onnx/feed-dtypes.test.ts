/**
 * Inputs of float64, the smaller integers (int8, int16, uint16, uint32) and
 * uint64: each is fed a constant or a tensor of another type, checked value
 * by value against the type's range, and refused naming the input, the
 * element and that range.
 */
import { describe, expect, it } from 'vitest';
import type { TensorData, TensorDtype } from '../arrays/dtypes';
import { isFlowbenchError } from '../errors';
import type { ConstantType } from '../runtime/tensor-runtime';
import { constantHint } from './constant-types';
import { feedsProblem, planFeeds, type InputSource, type PortTensor } from './feeds';

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (isFlowbenchError(error, 'model-feed')) return error.message;
    throw error;
  }
  throw new Error('expected a refusal');
}

/** The constant planned for one input `v` of `type` [n] takes, given as an array. */
const constant = (type: ConstantType, values: InputSource[]) =>
  planFeeds([{ name: 'v', type, shape: [values.length] }], { v: values }, null).constants.v!;

/** What is said of the array constant `values` for an input `v` of `type`. */
const refused = (type: ConstantType, values: InputSource[]) =>
  refusal(() => constant(type, values));

/** The plan for an input `v` of `type` fed from the tensor `v.npy` of `dtype`. */
const fromTensor = (type: ConstantType, dtype: TensorDtype, data: TensorData) => {
  const tensor: PortTensor = { name: 'v.npy', dtype, dims: [data.length], data };
  return () =>
    planFeeds([{ name: 'v', type, shape: [data.length] }], { v: 'tensor' }, null, { tensor })
      .constants.v!;
};

const smallIntegers = [
  { type: 'int8', least: -128, greatest: 127, words: 'an int8 (a whole number from −128 to 127)' },
  {
    type: 'int16',
    least: -32768,
    greatest: 32767,
    words: 'an int16 (a whole number from −32768 to 32767)',
  },
  { type: 'uint16', least: 0, greatest: 65535, words: 'a uint16 (a whole number from 0 to 65535)' },
  {
    type: 'uint32',
    least: 0,
    greatest: 4294967295,
    words: 'a uint32 (a whole number from 0 to 4294967295)',
  },
] as const;

describe('constants of float64, the smaller integers and uint64', () => {
  for (const { type, least, greatest, words } of smallIntegers)
    it(`takes ${type} from ${least} to ${greatest}, and names the element out of range or not whole`, () => {
      expect(constant(type, [least, greatest, 0])).toEqual({
        location: 'constant',
        type,
        dims: [3],
        values: [least, greatest, 0],
      });
      expect(refused(type, [0, greatest + 1])).toBe(
        `the model's input 'v' takes ${type}; the constant's element 1 (${greatest + 1}) is not ${words}`,
      );
      expect(refused(type, [least - 1])).toBe(
        `the model's input 'v' takes ${type}; the constant's element 0 (${least - 1}) is not ${words}`,
      );
      expect(refused(type, [1, 2, 2.5])).toBe(
        `the model's input 'v' takes ${type}; the constant's element 2 (2.5) is not ${words}`,
      );
    });

  it('takes any number as float64, exactly, where float32 would round it', () => {
    const values = [0.1, 1e300, -5e-324, 2 ** 53 + 2];
    expect(constant('float64', values).values).toEqual(values);
    expect(Math.fround(0.1)).not.toBe(0.1); // what a float32 feed would have lost
    expect(refused('float64', [1, true])).toBe(
      "the model's input 'v' takes float64; the constant's element 1 (true) is not a number (float64)",
    );
  });

  it('takes a uint64 typed exactly, from 0 to 2^53', () => {
    expect(constant('uint64', [0, 2 ** 53 - 1]).values).toEqual([0, 2 ** 53 - 1]);
    const words = 'is not a uint64 typed exactly (a whole number from 0 to 2^53)';
    expect(refused('uint64', [-1])).toBe(
      `the model's input 'v' takes uint64; the constant's element 0 (-1) ${words}`,
    );
    expect(refused('uint64', [0.5])).toContain(`element 0 (0.5) ${words}`);
  });

  it('fills a shape with one number checked once, and tells the inspector of a value that does not fit', () => {
    const gain = [{ name: 'gain', type: 'int16', shape: [2, 2] }] as const;
    expect(planFeeds(gain, { gain: -7 }, null).constants.gain).toEqual({
      location: 'constant',
      type: 'int16',
      dims: [2, 2],
      values: [-7, -7, -7, -7],
    });
    expect(feedsProblem(gain, { gain: 40000 })).toBe(
      "the model's input 'gain' takes int16; the constant 40000 is not an int16 (a whole number from −32768 to 32767)",
    );
    expect(feedsProblem([{ name: 'x', type: 'float64', shape: [] }], { x: 0.1 })).toBeNull();
  });

  it('says beside the constant what the input’s type takes', () => {
    expect(constantHint('int16')).toBe('int16: a whole number from −32768 to 32767');
    expect(constantHint('float64')).toBe('float64: any number');
    expect(constantHint('uint32')).toBe('uint32: a whole number from 0 to 4294967295');
    expect(constantHint('string')).toBeNull();
  });
});

describe('tensors converted to float64, the smaller integers and uint64', () => {
  it('converts an int32 array to int16 while each value fits, and names the first that does not', () => {
    expect(fromTensor('int16', 'int32', Int32Array.of(-300, 7, 32767))()).toEqual({
      location: 'constant',
      type: 'int16',
      dims: [3],
      values: [-300, 7, 32767],
    });
    expect(refusal(fromTensor('int16', 'int32', Int32Array.of(1, 40000)))).toBe(
      "the model's input 'v' takes int16 [2]; the tensor v.npy (int32 [2]) has element 1 = 40000, not an int16 (a whole number from −32768 to 32767)",
    );
  });

  it('refuses a float that is not whole and a negative into an unsigned type', () => {
    expect(refusal(fromTensor('int8', 'float32', Float32Array.of(1, 1.5)))).toBe(
      "the model's input 'v' takes int8 [2]; the tensor v.npy (float32 [2]) has element 1 = 1.5, not an int8 (a whole number from −128 to 127)",
    );
    expect(refusal(fromTensor('uint16', 'int8', Int8Array.of(-1)))).toBe(
      "the model's input 'v' takes uint16 [1]; the tensor v.npy (int8 [1]) has element 0 = -1, not a uint16 (a whole number from 0 to 65535)",
    );
    expect(fromTensor('uint32', 'float64', Float64Array.of(4294967295))().values).toEqual([
      4294967295,
    ]);
  });

  it('compares 64-bit integers as they are: past 2^53 into uint32 is out of range, not rounded', () => {
    expect(refusal(fromTensor('uint32', 'uint64', BigUint64Array.of(2n ** 53n + 1n)))).toBe(
      "the model's input 'v' takes uint32 [1]; the tensor v.npy (uint64 [1]) has element 0 = 9007199254740993, not a uint32 (a whole number from 0 to 4294967295)",
    );
    expect(fromTensor('int16', 'int64', BigInt64Array.of(-5n))().values).toEqual([-5]);
  });

  it('widens any float to float64 exactly, and refuses an int64 no double holds', () => {
    const tenth = Math.fround(0.1);
    expect(fromTensor('float64', 'float32', Float32Array.of(0.1, -2))().values).toEqual([
      tenth,
      -2,
    ]);
    expect(fromTensor('float64', 'float16', Uint16Array.of(0x3c00))().values).toEqual([1]);
    expect(refusal(fromTensor('float64', 'int64', BigInt64Array.of(2n ** 53n + 1n)))).toBe(
      "the model's input 'v' takes float64 [1]; the tensor v.npy (int64 [1]) has element 0 = 9007199254740993, not a float64 exactly (it would be rounded to 9007199254740992)",
    );
  });

  it('feeds uint64 as bigints, exactly past 2^53, and refuses a negative int64', () => {
    const big = 2n ** 64n - 1n;
    const fed = fromTensor('uint64', 'uint64', BigUint64Array.of(big, 3n))();
    expect(fed.values).toEqual(BigUint64Array.of(big, 3n));
    expect(fromTensor('uint64', 'int32', Int32Array.of(7))().values).toEqual(BigUint64Array.of(7n));
    expect(refusal(fromTensor('uint64', 'int64', BigInt64Array.of(1n, -1n)))).toBe(
      "the model's input 'v' takes uint64 [2]; the tensor v.npy (int64 [2]) has element 1 = -1, beyond uint64 (0 to 2^64 − 1)",
    );
  });
});
