/**
 * The IDX files of the classic handwritten-digit format: one file of
 * `count × rows × cols` unsigned bytes (magic `0x00000803`) and one of
 * `count` unsigned byte labels (magic `0x00000801`), big-endian sizes after
 * the magic, each perhaps gzipped. Read into the same rows a folder archive
 * gives (see archive.ts), the classes named by their label values.
 */
import { gunzipSync } from 'fflate';

export interface IdxImages {
  readonly count: number;
  readonly height: number;
  readonly width: number;
  /** `count × height × width` bytes, row-major. */
  readonly pixels: Uint8Array;
}

/** `bytes`, gunzipped when they start as gzip does. */
function plain(bytes: Uint8Array): Uint8Array {
  return bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes;
}

/** Reads an IDX header of `dims` sizes with magic `magic`; throws an Error saying what is wrong. */
function header(bytes: Uint8Array, magic: number, dims: number): number[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const found = bytes.byteLength < 4 ? 0 : view.getUint32(0);
  if (found !== magic)
    throw new Error(
      `starts with 0x${found.toString(16).padStart(8, '0')}, not the IDX magic 0x${magic.toString(16).padStart(8, '0')}`,
    );
  if (bytes.byteLength < 4 + 4 * dims) throw new Error('is shorter than its header');
  const sizes = Array.from({ length: dims }, (_, i) => view.getUint32(4 + 4 * i));
  const expected = 4 + 4 * dims + sizes.reduce((a, b) => a * b, 1);
  if (bytes.byteLength !== expected)
    throw new Error(`holds ${bytes.byteLength} bytes; its header promises ${expected}`);
  return sizes;
}

/** An IDX images file (`idx3-ubyte`). */
export function readIdxImages(bytes: Uint8Array): IdxImages {
  const data = plain(bytes);
  const [count, height, width] = header(data, 0x00000803, 3) as [number, number, number];
  return { count, height, width, pixels: data.subarray(16) };
}

/** An IDX labels file (`idx1-ubyte`). */
export function readIdxLabels(bytes: Uint8Array): Uint8Array {
  const data = plain(bytes);
  header(data, 0x00000801, 1);
  return data.subarray(8);
}
