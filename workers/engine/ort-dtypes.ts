/**
 * Element types at the onnxruntime boundary. The engine's tensors are
 * float32 or int32; a model may take or give int64, float16, float64, bool,
 * the smaller integers (int8 … uint32) and uint64. A typed constant becomes
 * the typed array onnxruntime wants for its type only here. An output of
 * another type is read as float32 numbers for the nodes downstream and
 * keeps its exact values beside them (`exact`:
 * bigints for 64-bit integers, doubles for the rest), which the node that
 * runs the model describes and emits. Trade-off: such an output is held
 * twice while it lives, once as float32 and once exactly.
 */
import { allocateData, type TensorData } from '../../src/core/arrays/dtypes';
import { fromHalfBits, halfBits } from '../../src/core/arrays/half';
import type { ExactValues, TypedConstant } from '../../src/core/runtime/tensor-runtime';

export { fromHalfBits, halfBits };

/** What onnxruntime's `Tensor` constructor takes as data for a typed constant: a tensor's typed arrays. */
export type OrtConstantData = TensorData;

/**
 * The typed array onnxruntime takes for a constant of its type: the one the
 * type's tensors are held in (`arrayKinds`), float16 as its bits, a 64-bit
 * integer as bigints.
 */
export function ortConstantData(constant: TypedConstant): OrtConstantData {
  const { type, values } = constant;
  // Bigints come only with an int64 or a uint64 (see `TypedConstant`): taken as they are, never through a double.
  if (values instanceof BigInt64Array || values instanceof BigUint64Array) return values;
  const data = allocateData(type, values.length);
  if (data instanceof BigInt64Array || data instanceof BigUint64Array)
    values.forEach((v, i) => (data[i] = BigInt(v)));
  else if (type === 'float16') values.forEach((v, i) => (data[i] = halfBits(v)));
  else data.set(values);
  return data;
}

/**
 * An output's data as the engine's tensor data: int32 and float32 as they
 * are, every other numeric type as float32 numbers (int64 through `Number`,
 * float16 from its bits, bool as 0 or 1). A string output cannot be.
 */
export function engineData(type: string, data: unknown): Float32Array | Int32Array {
  if (data instanceof Float32Array || data instanceof Int32Array) return data;
  if (type === 'float16' && data instanceof Uint16Array)
    return Float32Array.from(data, fromHalfBits);
  if (data instanceof BigInt64Array || data instanceof BigUint64Array)
    return Float32Array.from(data, (v) => Number(v));
  if (ArrayBuffer.isView(data) && !(data instanceof DataView))
    return Float32Array.from(data as unknown as ArrayLike<number>);
  throw new Error(`an output of type ${type} cannot be read as numbers`);
}

/**
 * An output's exact values when its type is not the engine's (see
 * `ExactValues`): int64 and uint64 as the bigints onnxruntime gives,
 * float16 from its bits (or from a `Float16Array`, where the platform has
 * one), any other type as doubles. Undefined for float32 and int32.
 */
export function exactValues(type: string, data: unknown): ExactValues | undefined {
  if (data instanceof Float32Array || data instanceof Int32Array) return undefined;
  if (data instanceof BigInt64Array || data instanceof BigUint64Array) return { type, data };
  if (type === 'float16' && data instanceof Uint16Array)
    return { type, data: Float64Array.from(data, fromHalfBits) };
  if (ArrayBuffer.isView(data) && !(data instanceof DataView))
    return { type, data: Float64Array.from(data as unknown as ArrayLike<number>) };
  return undefined;
}
