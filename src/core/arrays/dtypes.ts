/**
 * Tensor element types, kept end to end: an array read from a NumPy file
 * keeps the type it was written in (int64 as a `BigInt64Array`, exactly),
 * and is converted only where it is fed to a model, to the type the model
 * declares (`onnx/tensor-feed.ts`). Each type has one typed array that holds
 * it: float16 as its 16 bits (not every platform has a `Float16Array`),
 * bool as bytes of 0 or 1. Trade-off: two types share an array kind (bool
 * and uint8, float16 and uint16), so the type travels beside the data as a
 * name, and whoever hashes or stores a tensor keeps that name with it.
 */
import { fromHalfBits } from './half';

/** The element types a tensor may hold (NumPy's numbers and bools). */
export const tensorDtypes = [
  'float32',
  'float64',
  'float16',
  'int8',
  'int16',
  'int32',
  'int64',
  'uint8',
  'uint16',
  'uint32',
  'uint64',
  'bool',
] as const;
export type TensorDtype = (typeof tensorDtypes)[number];

/** The typed array that holds a tensor's elements, row-major (see `arrayKinds`). */
export type TensorData =
  | Float32Array
  | Float64Array
  | Int8Array
  | Int16Array
  | Int32Array
  | BigInt64Array
  | Uint8Array
  | Uint16Array
  | Uint32Array
  | BigUint64Array;

/** The typed array each element type is held in. */
export const arrayKinds = {
  float32: Float32Array,
  float64: Float64Array,
  float16: Uint16Array,
  int8: Int8Array,
  int16: Int16Array,
  int32: Int32Array,
  int64: BigInt64Array,
  uint8: Uint8Array,
  uint16: Uint16Array,
  uint32: Uint32Array,
  uint64: BigUint64Array,
  bool: Uint8Array,
} as const satisfies Record<TensorDtype, new (length: number) => TensorData>;

/** A tensor's element type: float32 when it does not say (a tensor from before types were kept). */
export function dtypeOf(tensor: { readonly dtype?: TensorDtype }): TensorDtype {
  return tensor.dtype ?? 'float32';
}

/** A zeroed array of `count` elements of `dtype`. */
export function allocateData(dtype: TensorDtype, count: number): TensorData {
  return new arrayKinds[dtype](count);
}

/** Whether `data` is the array kind `dtype` is held in (a check on values that crossed a boundary). */
export function holds(dtype: TensorDtype, data: unknown): data is TensorData {
  return data instanceof arrayKinds[dtype];
}

/** Element `i` as the number it stands for — a bigint for 64-bit integers, float16 decoded from its bits. */
export function elementOf(dtype: TensorDtype, data: TensorData, i: number): number | bigint {
  const v = data[i]!;
  return dtype === 'float16' ? fromHalfBits(v as number) : v;
}

/** Whether the type's elements are whole numbers (bool counts: 0 and 1). */
export function isIntegerDtype(dtype: TensorDtype): boolean {
  return dtype !== 'float32' && dtype !== 'float64' && dtype !== 'float16';
}
