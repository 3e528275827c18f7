/**
 * A tensor fed to a model input, in the type the input declares: the
 * tensor keeps its own type on the edge (`arrays/dtypes.ts`), and here each
 * value is converted only where it stays the same number — an int64 array
 * into an int64 input as it is (bigints, exactly, past 2^53), an int32 array
 * into a float32 input while each value fits float32's 24 bits, a float64
 * array into an int64 input while each value is whole. The first value that
 * would change is named (its index and value) and nothing is fed.
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
import type { ConstantType } from '../runtime/tensor-runtime';

/** What a conversion reads of a tensor (a `tensor` edge's value; its name and shape for messages). */
export interface FedTensor {
  readonly name: string;
  readonly dims: readonly number[];
  readonly data: TensorData;
  /** Absent: float32. */
  readonly dtype?: TensorDtype;
}

/** A constant's values: plain numbers, or an int64's bigints (exact past ±2^53). */
export type FedValues = readonly number[] | BigInt64Array;

/** The tensor's values in the input's type, or what does not fit (a clause: "has element 3 = 2.5, not an int64 …"). */
export type Converted<T> = { readonly values: T } | { readonly problem: string };

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * Why `v` is not a value of `type` exactly, or null when it is one.
 * `rounds`: `v` is a float that may round into a narrower float type.
 */
export function unfit(type: ConstantType, v: number | bigint, rounds = false): string | null {
  if (typeof v === 'bigint') {
    if (type === 'int64')
      return v >= INT64_MIN && v <= INT64_MAX ? null : 'beyond int64 (−2^63 to 2^63 − 1)';
    const n = Number(v);
    if (BigInt(n) !== v) return `not a ${type} exactly (it would be rounded to ${n})`;
    return unfit(type, n);
  }
  switch (type) {
    case 'float32':
    case 'float16': {
      const near = type === 'float32' ? Math.fround(v) : fromHalfBits(halfBits(v));
      if (Number.isNaN(v) || near === v) return null;
      if (!Number.isFinite(near)) return `beyond ${type}’s range`;
      return rounds ? null : `not a ${type} exactly (it would be rounded to ${near})`;
    }
    case 'int32':
      return Number.isInteger(v) && v >= -(2 ** 31) && v < 2 ** 31
        ? null
        : 'not an int32 (a whole number from −2^31 to 2^31 − 1)';
    case 'int64':
      return Number.isInteger(v) && v >= -(2 ** 63) && v < 2 ** 63
        ? null
        : 'not an int64 (a whole number from −2^63 to 2^63 − 1)';
    case 'uint8':
      return Number.isInteger(v) && v >= 0 && v <= 255
        ? null
        : 'not a uint8 (a whole number 0–255)';
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
  if (type === 'int64') {
    // Already int64: as it is (a copy, so a buffer handed to a worker leaves the value whole).
    if (data instanceof BigInt64Array) return { values: data.slice() };
    const out = new BigInt64Array(data.length);
    for (let i = 0; i < data.length; i++) {
      const v = elementOf(dtype, data, i);
      const why = unfit('int64', v);
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
