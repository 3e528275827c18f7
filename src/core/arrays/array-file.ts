/**
 * One array of a NumPy file, as `data.tensor` reads it and the inspector
 * describes it: an `.npy`, or one array of an `.npz` (named, or the first).
 * One reading for both, so what the inspector says of a wired tensor before
 * a run is what the run will feed.
 */
import { FlowbenchError } from '../errors';
import type { TensorDtype } from './dtypes';
import { readNpy, readNpz, type NpyArray } from './npy';

/** A zip archive's first bytes (`PK\x03\x04`): an `.npz`. */
const isZip = (bytes: Uint8Array) =>
  bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;

export interface ArrayFile {
  /** The file's name, and in an `.npz` the array's: `pairs.npz/x`. */
  readonly name: string;
  readonly array: NpyArray;
  /** In an `.npz`, every array it holds, in order; null for an `.npy`. */
  readonly arrays: readonly string[] | null;
}

/**
 * `array` of the file (in an `.npz`; empty: its first). Fails `node-input`
 * naming the arrays there are when it has no such array, and as `readNpy`
 * does on a file that is not NumPy's.
 */
export function readArrayFile(file: { name: string; bytes: Uint8Array }, array: string): ArrayFile {
  if (!isZip(file.bytes))
    return { name: file.name, array: readNpy(file.bytes, file.name), arrays: null };
  const arrays = readNpz(file.bytes, file.name);
  const names = [...arrays.keys()];
  const picked = array === '' ? names[0]! : array;
  const read = arrays.get(picked);
  if (read === undefined)
    throw new FlowbenchError('node-input', {
      problem: `param 'array': ${file.name} has no array '${picked}'; it has ${names.join(', ')}`,
    });
  return { name: `${file.name}/${picked}`, array: read, arrays: names };
}

/** What the inspector says of an array file before a run: its name, element type and shape. */
export interface ArrayCard {
  readonly name: string;
  readonly dtype: TensorDtype;
  readonly dims: readonly number[];
}
