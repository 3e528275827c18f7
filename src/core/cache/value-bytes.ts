/**
 * Value bytes: a value that travelled along an edge (a dataset, a model, a
 * number, a plain object of typed arrays) as one deterministic byte string,
 * and back. The node-output cache stores these bytes and digests them.
 *
 * Idea: the value's shape is canonical JSON (keys sorted) in which every
 * typed array is a reference into a binary tail, written after the JSON, each
 * array 8-byte aligned; numbers JSON cannot hold (NaN, ±Infinity, -0) are
 * tagged. The same value always gives the same bytes, so equal bytes mean an
 * equal value and their SHA-256 names it. Trade-off: only plain data encodes —
 * a value holding a class instance, a function or a Map (a live data source,
 * a running engine) gives `null`, and whatever it feeds is not cached.
 */
import { canonicalJson } from '../run/digest';

const arrayTypes = {
  Float32Array,
  Float64Array,
  Int8Array,
  Int16Array,
  Int32Array,
  Uint8Array,
  Uint16Array,
  Uint32Array,
  Uint8ClampedArray,
  // A tensor's int64 and uint64 elements (exact past 2^53); the tensor's `dtype` names them too.
  BigInt64Array,
  BigUint64Array,
} as const;
type ArrayTypeName = keyof typeof arrayTypes;
type AnyTypedArray = InstanceType<(typeof arrayTypes)[ArrayTypeName]>;

const MAGIC = 0x46424331; // "FBC1"

/** Not plain data: the value has no byte form (thrown out of the walk, caught in `encodeValue`). */
class Opaque extends Error {}
const OPAQUE = new Opaque('not plain data');

function typedName(value: object): ArrayTypeName | null {
  if (!ArrayBuffer.isView(value) || value instanceof DataView) return null;
  const name = value.constructor.name;
  return Object.hasOwn(arrayTypes, name) ? (name as ArrayTypeName) : null;
}

/** Keys in one fixed order (UTF-16 code units, as canonical JSON sorts them), for encode and decode alike. */
const sortedKeys = (value: object) => Object.keys(value).sort();

function skeleton(value: unknown, arrays: AnyTypedArray[]): unknown {
  switch (typeof value) {
    case 'number':
      if (Number.isFinite(value) && !Object.is(value, -0)) return value;
      return { $num: Object.is(value, -0) ? '-0' : String(value) };
    case 'string':
    case 'boolean':
      return value;
    case 'object': {
      if (value === null) return null;
      const typed = typedName(value);
      if (typed) {
        arrays.push(value as AnyTypedArray);
        return { $arr: typed, n: (value as AnyTypedArray).length };
      }
      if (Array.isArray(value)) return value.map((item) => skeleton(item, arrays));
      const proto = Object.getPrototypeOf(value) as unknown;
      if (proto !== Object.prototype && proto !== null) throw OPAQUE;
      const out: Record<string, unknown> = {};
      for (const key of sortedKeys(value)) {
        const item = (value as Record<string, unknown>)[key];
        if (item === undefined) continue;
        // A key of our own tags, in a value's data, would read back as the tag.
        if (key === '$num' || key === '$arr') throw OPAQUE;
        out[key] = skeleton(item, arrays);
      }
      return out;
    }
    default:
      throw OPAQUE;
  }
}

const align8 = (n: number) => (n + 7) & ~7;

/** The value's bytes, or `null` when it is not plain data (see the module comment). */
export function encodeValue(value: unknown): Uint8Array | null {
  const arrays: AnyTypedArray[] = [];
  let shape: unknown;
  try {
    shape = skeleton(value, arrays);
  } catch (error) {
    if (error === OPAQUE) return null;
    throw error;
  }
  const json = new TextEncoder().encode(canonicalJson(shape));
  let size = align8(8 + json.byteLength);
  const offsets = arrays.map((array) => {
    const at = size;
    size = align8(size + array.byteLength);
    return at;
  });
  const bytes = new Uint8Array(size);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, json.byteLength, true);
  bytes.set(json, 8);
  arrays.forEach((array, i) =>
    bytes.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), offsets[i]),
  );
  return bytes;
}

/** The value `encodeValue` made these bytes from; throws on bytes it did not make. */
export function decodeValue(bytes: Uint8Array): unknown {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 8 || view.getUint32(0, true) !== MAGIC)
    throw new Error('not the bytes of a cached value');
  const length = view.getUint32(4, true);
  const shape = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + length))) as unknown;
  // The arrays follow the JSON in the order the walk meets them, each aligned.
  let at = align8(8 + length);
  const cut = (name: ArrayTypeName, count: number): AnyTypedArray => {
    const Type = arrayTypes[name];
    const byteLength = count * Type.BYTES_PER_ELEMENT;
    if (at + byteLength > bytes.byteLength) throw new Error('cached value bytes are cut short');
    const copy = bytes.slice(at, at + byteLength);
    at = align8(at + byteLength);
    return new Type(copy.buffer, 0, count);
  };
  return revive(shape, cut);
}

function revive(
  node: unknown,
  cut: (name: ArrayTypeName, count: number) => AnyTypedArray,
): unknown {
  if (Array.isArray(node)) return node.map((item) => revive(item, cut));
  if (node === null || typeof node !== 'object') return node;
  const tagged = node as { $num?: string; $arr?: ArrayTypeName; n?: number };
  if (tagged.$num !== undefined) return tagged.$num === '-0' ? -0 : Number(tagged.$num);
  if (tagged.$arr !== undefined) return cut(tagged.$arr, tagged.n!);
  const out: Record<string, unknown> = {};
  // The same key order as the encoder's walk, so each array is cut where it was written.
  for (const key of sortedKeys(node))
    out[key] = revive((node as Record<string, unknown>)[key], cut);
  return out;
}
