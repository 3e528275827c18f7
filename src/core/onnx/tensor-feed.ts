/**
 * A tensor fed to a model input, in the type the input declares: the
 * tensor keeps its own type on the edge (`arrays/dtypes.ts`), and here each
 * value is converted only where it stays the same number — an int64 array
 * into an int64 input as it is (bigints, exactly, past 2^53), an int32 array
 * into a float32 input while each value fits float32's 24 bits, a float64
 * array into an int64 input while each value is whole, an int32 array into
 * an int16 input while each value is within −32768 to 32767, any number into
 * a float64 input. The first value that would change is named (its index
 * and value) and nothing is fed.
 *
 * One exception, on purpose: floats into a narrower float (NumPy's default
 * float64 into a float32 input) round to the nearest value, as NumPy's
 * `astype` does — refusing them would refuse almost every array NumPy
 * writes — but a value beyond the narrower type's range is refused. A whole
 * number never rounds: an id past 2^24 is a different id in float32.
 *
 * Trade-off: every value is checked, one by one, even where the types alone
 * would tell (int16 into float32 always fits): one loop serves every pair
 * of types, and the arrays a model takes from a file are small beside it.
 */
import {
  dtypeOf,
  elementOf,
  isIntegerDtype,
  type TensorData,
  type TensorDtype,
} from '../arrays/dtypes';
import { fromHalfBits, halfBits } from '../arrays/half';
import { aType, isSmallInteger, outOfRange } from './constant-types';
import type { ConstantType } from '../runtime/tensor-runtime';

/** What a conversion reads of a tensor (a `tensor` edge's value; its name and shape for messages). */
export interface FedTensor {
  readonly name: string;
  readonly dims: readonly number[];
  readonly data: TensorData;
  /** Absent: float32. */
  readonly dtype?: TensorDtype;
}

/** A constant's values: plain numbers, or an int64's or a uint64's bigints (exact past ±2^53). */
export type FedValues = readonly number[] | BigInt64Array | BigUint64Array;

/** The tensor's values in the input's type, or what does not fit (a clause: "has element 3 = 2.5, not an int64 …"). */
export type Converted<T> = { readonly values: T } | { readonly problem: string };

/** The 64-bit integer types' least and greatest values, as bigints and in words. */
const ranges64 = {
  int64: { least: -(2n ** 63n), greatest: 2n ** 63n - 1n, span: '−2^63 to 2^63 − 1' },
  uint64: { least: 0n, greatest: 2n ** 64n - 1n, span: '0 to 2^64 − 1' },
} as const;

/** Why `v` is not an int64 (a uint64), or null when it is one; a bigint is compared as it is. */
function outOf64(type: 'int64' | 'uint64', v: number | bigint): string | null {
  const { least, greatest, span } = ranges64[type];
  if (typeof v === 'bigint') return v >= least && v <= greatest ? null : `beyond ${type} (${span})`;
  return Number.isInteger(v) && BigInt(v) >= least && BigInt(v) <= greatest
    ? null
    : `not ${aType(type)} (a whole number from ${span})`;
}

/**
 * Why `v` is not a value of `type` exactly, or null when it is one.
 * `rounds`: `v` is a float that may round into a narrower float type.
 */
export function unfit(type: ConstantType, v: number | bigint, rounds = false): string | null {
  if (type === 'int64' || type === 'uint64') return outOf64(type, v);
  if (isSmallInteger(type)) return outOfRange(type, v);
  if (typeof v === 'bigint') {
    const n = Number(v);
    if (BigInt(n) !== v) return `not ${aType(type)} exactly (it would be rounded to ${n})`;
    return unfit(type, n);
  }
  switch (type) {
    case 'float64':
      return null; // every number here is a double already
    case 'float32':
    case 'float16': {
      const near = type === 'float32' ? Math.fround(v) : fromHalfBits(halfBits(v));
      if (Number.isNaN(v) || near === v) return null;
      if (!Number.isFinite(near)) return `beyond ${type}’s range`;
      return rounds ? null : `not ${aType(type)} exactly (it would be rounded to ${near})`;
    }
    case 'bool':
      return v === 0 || v === 1 ? null : 'not a bool (0 or 1)';
  }
}

function misfit(
  tensor: FedTensor,
  i: number,
  v: number | bigint,
  why: string,
): { problem: string } {
  return {
    problem: `the tensor ${tensor.name} (${dtypeOf(tensor)} [${tensor.dims.join('×')}]) has element ${i} = ${String(v)}, ${why}`,
  };
}

/** Every value of the tensor as `type`, or the first that would change. */
export function convertTensor(tensor: FedTensor, type: ConstantType): Converted<FedValues> {
  const dtype: TensorDtype = dtypeOf(tensor);
  const { data } = tensor;
  if (type === 'int64' || type === 'uint64') {
    // Already of the type: as it is (a copy, so a buffer handed to a worker leaves the value whole).
    if (type === 'int64' ? data instanceof BigInt64Array : data instanceof BigUint64Array)
      return { values: (data as BigInt64Array | BigUint64Array).slice() };
    const out = type === 'int64' ? new BigInt64Array(data.length) : new BigUint64Array(data.length);
    for (let i = 0; i < data.length; i++) {
      const v = elementOf(dtype, data, i);
      const why = unfit(type, v);
      if (why !== null) return misfit(tensor, i, v, why);
      out[i] = typeof v === 'bigint' ? v : BigInt(v);
    }
    return { values: out };
  }
  const rounds = !isIntegerDtype(dtype);
  const out = new Array<number>(data.length);
  for (let i = 0; i < data.length; i++) {
    const v = elementOf(dtype, data, i);
    const why = unfit(type, v, rounds);
    if (why !== null) return misfit(tensor, i, v, why);
    out[i] = Number(v);
  }
  return { values: out };
}

/** The tensor as float32 (a sequence's samples), or the first value that float32 cannot hold. */
export function float32Values(tensor: FedTensor): Converted<Float32Array> {
  const { data } = tensor;
  if (data instanceof Float32Array && dtypeOf(tensor) === 'float32') return { values: data };
  const converted = convertTensor(tensor, 'float32');
  return 'problem' in converted
    ? converted
    : { values: Float32Array.from(converted.values as readonly number[]) };
}
