/**
 * NumPy's `.npy` and `.npz` files read into tensors of their own element
 * type, row-major.
 *
 * Idea: an `.npy` is a magic string, a version, a header — a Python dict
 * literal giving `descr` (byte order, kind, size: `<f4`, `>i8`, `|b1`),
 * `fortran_order` and `shape` — and the raw elements. The header is read
 * with a small parser for exactly that literal (no `eval`), each element
 * with a `DataView` in the byte order it declares, and a Fortran-order
 * array is transposed to row-major. An `.npz` is a zip of `.npy` files
 * (deflated by `savez_compressed`), opened with fflate. Every element keeps
 * its type (`dtypes.ts`): an int64 is read as a bigint, exactly, float16 as
 * its bits, bool as 0 or 1; the conversion to what a model takes happens
 * only where it is fed, and only where no value changes. Trade-off: object,
 * string and complex arrays are refused.
 */
import { unzipSync } from 'fflate';
import { FlowbenchError } from '../errors';
import { allocateData, type TensorData, type TensorDtype } from './dtypes';

/** An array read from a NumPy file. */
export interface NpyArray {
  /** The element type as NumPy wrote it, e.g. `<f4`. */
  readonly descr: string;
  /** The element type the file holds (`<i8` is int64, `|b1` bool …), which `data` keeps. */
  readonly dtype: TensorDtype;
  readonly dims: readonly number[];
  /** Row-major, whatever order the file stored, in the array kind of `dtype`. */
  readonly data: TensorData;
}

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY

function refuse(file: string, problem: string): FlowbenchError<'node-input'> {
  return new FlowbenchError('node-input', { problem: `array file '${file}': ${problem}` });
}

/** The header's dict literal: `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`. */
function readHeader(
  text: string,
  file: string,
): { descr: string; fortran: boolean; shape: number[] } {
  const descr = /'descr'\s*:\s*'([^']*)'/.exec(text)?.[1];
  const fortran = /'fortran_order'\s*:\s*(True|False)/.exec(text)?.[1];
  const shape = /'shape'\s*:\s*\(([^)]*)\)/.exec(text)?.[1];
  if (descr === undefined || fortran === undefined || shape === undefined)
    throw refuse(file, `its header is not a NumPy array header: ${text.trim()}`);
  const dims = shape
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => Number(s.replace(/L$/, '')));
  if (dims.some((d) => !Number.isInteger(d) || d < 0))
    throw refuse(file, `its shape (${shape}) is not a list of sizes`);
  return { descr, fortran: fortran === 'True', shape: dims };
}

/** How one element is read and written: its size, type, and a copy from the file's bytes. */
interface ElementReader {
  readonly size: number;
  readonly dtype: TensorDtype;
  /** Writes the element at byte `at` of `v` into `out[i]`. */
  readonly copy: (v: DataView, at: number, out: TensorData, i: number) => void;
}

/** The reader for a `descr` (`<f4`, `>i8`, `|b1` …); throws naming a type that is not read. */
function elementReader(descr: string, file: string): ElementReader {
  const match = /^([<>|=])([fiub])(\d+)$/.exec(descr);
  if (match === null)
    throw refuse(
      file,
      `elements of type '${descr}', which are not read (numbers and bools only: f2/f4/f8, i1–i8, u1–u8, b1)`,
    );
  const little = match[1] !== '>';
  type Read = (v: DataView, at: number) => number | bigint;
  const readers: Record<string, [TensorDtype, Read] | undefined> = {
    f4: ['float32', (v, at) => v.getFloat32(at, little)],
    f8: ['float64', (v, at) => v.getFloat64(at, little)],
    f2: ['float16', (v, at) => v.getUint16(at, little)], // kept as its bits
    i1: ['int8', (v, at) => v.getInt8(at)],
    i2: ['int16', (v, at) => v.getInt16(at, little)],
    i4: ['int32', (v, at) => v.getInt32(at, little)],
    i8: ['int64', (v, at) => v.getBigInt64(at, little)],
    u1: ['uint8', (v, at) => v.getUint8(at)],
    u2: ['uint16', (v, at) => v.getUint16(at, little)],
    u4: ['uint32', (v, at) => v.getUint32(at, little)],
    u8: ['uint64', (v, at) => v.getBigUint64(at, little)],
    b1: ['bool', (v, at) => (v.getUint8(at) === 0 ? 0 : 1)],
  };
  const found = readers[`${match[2]!}${match[3]!}`];
  if (found === undefined) throw refuse(file, `elements of type '${descr}' are not read`);
  const [dtype, read] = found;
  return {
    size: Number(match[3]),
    dtype,
    // Each array kind takes the value read for its own type (a bigint only in 64-bit ones).
    copy: (v, at, out, i) => {
      (out as unknown as (number | bigint)[])[i] = read(v, at);
    },
  };
}

/** Column-major `data` of `dims` rearranged row-major, in the same array kind. */
function toRowMajor(data: TensorData, dims: readonly number[]): TensorData {
  if (dims.length < 2) return data;
  const out = data.slice();
  const into = out as unknown as unknown[];
  const from = data as unknown as readonly unknown[];
  const index = new Array<number>(dims.length).fill(0);
  // Walk the elements in row-major order; find each one's column-major position.
  for (let r = 0; r < data.length; r++) {
    let c = 0;
    for (let axis = dims.length - 1; axis >= 0; axis--) c = c * dims[axis]! + index[axis]!;
    into[r] = from[c];
    for (let axis = dims.length - 1; axis >= 0; axis--) {
      if (++index[axis]! < dims[axis]!) break;
      index[axis] = 0;
    }
  }
  return out;
}

/** Reads one `.npy` file; throws `node-input` naming the file and what is wrong. */
export function readNpy(bytes: Uint8Array, file: string): NpyArray {
  if (bytes.byteLength < 10 || MAGIC.some((b, i) => bytes[i] !== b))
    throw refuse(file, 'not a NumPy .npy file (no \\x93NUMPY magic)');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const major = bytes[6]!;
  const wide = major >= 2;
  const headerLength = wide ? view.getUint32(8, true) : view.getUint16(8, true);
  const start = (wide ? 12 : 10) + headerLength;
  if (start > bytes.byteLength) throw refuse(file, 'its header runs past the end of the file');
  const header = new TextDecoder(major >= 3 ? 'utf-8' : 'latin1').decode(
    bytes.subarray(wide ? 12 : 10, start),
  );
  const { descr, fortran, shape } = readHeader(header, file);
  const { size, dtype, copy } = elementReader(descr, file);
  const count = shape.reduce((a, b) => a * b, 1);
  if (start + count * size > bytes.byteLength)
    throw refuse(
      file,
      `shape (${shape.join(', ')}) of '${descr}' needs ${count * size} bytes of data; the file has ${bytes.byteLength - start}`,
    );
  const data = allocateData(dtype, count);
  for (let i = 0; i < count; i++) copy(view, start + i * size, data, i);
  return { descr, dtype, dims: shape, data: fortran ? toRowMajor(data, shape) : data };
}

/** The arrays of an `.npz` file by name (without `.npy`), in the archive's order. */
export function readNpz(bytes: Uint8Array, file: string): Map<string, NpyArray> {
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(bytes);
  } catch (error) {
    throw refuse(
      file,
      `not a zip archive (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  const arrays = new Map<string, NpyArray>();
  for (const [name, content] of Object.entries(entries))
    if (name.endsWith('.npy'))
      arrays.set(name.slice(0, -'.npy'.length), readNpy(content, `${file}/${name}`));
  if (arrays.size === 0) throw refuse(file, 'holds no .npy arrays');
  return arrays;
}
