/**
 * NumPy's `.npy` and `.npz` files read into float32 tensors, row-major.
 *
 * Idea: an `.npy` is a magic string, a version, a header — a Python dict
 * literal giving `descr` (byte order, kind, size: `<f4`, `>i8`, `|b1`),
 * `fortran_order` and `shape` — and the raw elements. The header is read
 * with a small parser for exactly that literal (no `eval`), each element
 * with a `DataView` in the byte order it declares, and a Fortran-order
 * array is transposed to row-major. An `.npz` is a zip of `.npy` files
 * (deflated by `savez_compressed`), opened with fflate. Trade-off: every
 * numeric type becomes float32 (the engine's type), so 64-bit integers and
 * floats lose precision beyond float32's 24 bits; object, string and
 * complex arrays are refused.
 */
import { unzipSync } from 'fflate';
import { FlowbenchError } from '../errors';

/** An array read from a NumPy file. */
export interface NpyArray {
  /** The element type as NumPy wrote it, e.g. `<f4`. */
  readonly descr: string;
  readonly dims: readonly number[];
  /** Row-major, whatever order the file stored. */
  readonly data: Float32Array;
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

/** Reads element `i` of a `descr` array at `offset` in `view`. */
function elementReader(
  descr: string,
  file: string,
): { size: number; read: (v: DataView, at: number) => number } {
  const match = /^([<>|=])([fiub])(\d+)$/.exec(descr);
  if (match === null)
    throw refuse(
      file,
      `elements of type '${descr}', which are not read (numbers and bools only: f2/f4/f8, i1–i8, u1–u8, b1)`,
    );
  const little = match[1] !== '>';
  const kind = match[2]!;
  const size = Number(match[3]);
  const readers: Record<string, ((v: DataView, at: number) => number) | undefined> = {
    f4: (v, at) => v.getFloat32(at, little),
    f8: (v, at) => v.getFloat64(at, little),
    f2: (v, at) => halfToNumber(v.getUint16(at, little)),
    i1: (v, at) => v.getInt8(at),
    i2: (v, at) => v.getInt16(at, little),
    i4: (v, at) => v.getInt32(at, little),
    i8: (v, at) => Number(v.getBigInt64(at, little)),
    u1: (v, at) => v.getUint8(at),
    u2: (v, at) => v.getUint16(at, little),
    u4: (v, at) => v.getUint32(at, little),
    u8: (v, at) => Number(v.getBigUint64(at, little)),
    b1: (v, at) => (v.getUint8(at) === 0 ? 0 : 1),
  };
  const read = readers[`${kind}${size}`];
  if (read === undefined) throw refuse(file, `elements of type '${descr}' are not read`);
  return { size, read };
}

/** The number a half-precision float's bits stand for. */
function halfToNumber(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >>> 10) & 0x1f;
  const mant = bits & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant === 0 ? sign * Infinity : NaN;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

/** Column-major `data` of `dims` rearranged row-major. */
function toRowMajor(data: Float32Array, dims: readonly number[]): Float32Array {
  if (dims.length < 2) return data;
  const out = new Float32Array(data.length);
  const index = new Array<number>(dims.length).fill(0);
  // Walk the elements in row-major order; find each one's column-major position.
  for (let r = 0; r < data.length; r++) {
    let c = 0;
    for (let axis = dims.length - 1; axis >= 0; axis--) c = c * dims[axis]! + index[axis]!;
    out[r] = data[c]!;
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
  const { size, read } = elementReader(descr, file);
  const count = shape.reduce((a, b) => a * b, 1);
  if (start + count * size > bytes.byteLength)
    throw refuse(
      file,
      `shape (${shape.join(', ')}) of '${descr}' needs ${count * size} bytes of data; the file has ${bytes.byteLength - start}`,
    );
  const data = new Float32Array(count);
  for (let i = 0; i < count; i++) data[i] = read(view, start + i * size);
  return { descr, dims: shape, data: fortran ? toRowMajor(data, shape) : data };
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
