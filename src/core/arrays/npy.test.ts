import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { readNpy, readNpz } from './npy';

/** An `.npy` file as NumPy writes it: magic, version, padded header, then `data`'s bytes. */
function npy(header: string, data: Uint8Array, major = 1): Uint8Array {
  const prefix = major >= 2 ? 12 : 10;
  const text = header + ' '.repeat(64 - ((prefix + header.length + 1) % 64)) + '\n';
  const out = new Uint8Array(prefix + text.length + data.length);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, major, 0]);
  const view = new DataView(out.buffer);
  if (major >= 2) view.setUint32(8, text.length, true);
  else view.setUint16(8, text.length, true);
  out.set(new TextEncoder().encode(text), prefix);
  out.set(data, prefix + text.length);
  return out;
}

function bytes(length: number, write: (v: DataView) => void): Uint8Array {
  const out = new Uint8Array(length);
  write(new DataView(out.buffer));
  return out;
}

/** An array's elements as numbers or (64-bit integers) bigints. */
const values = (data: ArrayLike<number | bigint> | { data: ArrayLike<number | bigint> }) =>
  Array.from('data' in data ? data.data : data);

const head = (descr: string, shape: string, fortran = false) =>
  `{'descr': '${descr}', 'fortran_order': ${fortran ? 'True' : 'False'}, 'shape': ${shape}, }`;

describe('reading NumPy arrays', () => {
  it('reads a little-endian float32 matrix, row-major as written', () => {
    const data = new Uint8Array(Float32Array.from([1, 2, 3, 4, 5, 6.5]).buffer);
    const a = readNpy(npy(head('<f4', '(2, 3)'), data), 'm.npy');
    expect(a.dims).toEqual([2, 3]);
    expect(values(a.data)).toEqual([1, 2, 3, 4, 5, 6.5]);
  });

  it('reads big-endian int32, float64 and int64 in their byte order', () => {
    const i4 = bytes(8, (v) => {
      v.setInt32(0, -5, false);
      v.setInt32(4, 70000, false);
    });
    expect(values(readNpy(npy(head('>i4', '(2,)'), i4), 'b.npy').data)).toEqual([-5, 70000]);
    const f8 = bytes(16, (v) => {
      v.setFloat64(0, 0.25, false);
      v.setFloat64(8, -1e10, false);
    });
    expect(values(readNpy(npy(head('>f8', '(2,)'), f8), 'c.npy').data)).toEqual([0.25, -1e10]);
    const i8 = bytes(8, (v) => v.setBigInt64(0, -123456n, false));
    expect(values(readNpy(npy(head('>i8', '(1,)'), i8), 'd.npy').data)).toEqual([-123456n]);
  });

  it('keeps each element type: int64 and uint64 exactly past 2^53, as bigints', () => {
    const big = 2n ** 53n + 1n; // the first integer a double cannot hold
    const i8 = bytes(24, (v) => {
      v.setBigInt64(0, big, true);
      v.setBigInt64(8, -(2n ** 62n) - 3n, true);
      v.setBigInt64(16, 2n ** 63n - 1n, true);
    });
    const a = readNpy(npy(head('<i8', '(3,)'), i8), 'ids.npy');
    expect(a.dtype).toBe('int64');
    expect(a.data).toBeInstanceOf(BigInt64Array);
    expect(values(a)).toEqual([big, -(2n ** 62n) - 3n, 2n ** 63n - 1n]);
    const u8 = bytes(8, (v) => v.setBigUint64(0, 2n ** 64n - 1n, false));
    const u = readNpy(npy(head('>u8', '(1,)'), u8), 'u.npy');
    expect([u.dtype, ...values(u)]).toEqual(['uint64', 2n ** 64n - 1n]);
    // Fortran order moves bigints as they are.
    const f = bytes(32, (v) => [1n, 3n, big, 4n].forEach((x, i) => v.setBigInt64(8 * i, x, true)));
    expect(values(readNpy(npy(head('<i8', '(2, 2)', true), f), 'f.npy'))).toEqual([
      1n,
      big,
      3n,
      4n,
    ]);
    const types = ['<f4', '<f8', '<f2', '|i1', '<i2', '<i4', '|u1', '<u2', '<u4', '|b1'].map(
      (descr) => readNpy(npy(head(descr, '(1,)'), new Uint8Array(8)), 't.npy').dtype,
    );
    expect(types).toEqual([
      'float32',
      'float64',
      'float16',
      'int8',
      'int16',
      'int32',
      'uint8',
      'uint16',
      'uint32',
      'bool',
    ]);
  });

  it('transposes a Fortran-order array to row-major, in two and three dimensions', () => {
    // [[1, 2, 3], [4, 5, 6]] stored column by column.
    const f = new Uint8Array(Float64Array.from([1, 4, 2, 5, 3, 6]).buffer);
    const m = readNpy(npy(head('<f8', '(2, 3)', true), f), 'f.npy');
    expect(m.dims).toEqual([2, 3]);
    expect(values(m.data)).toEqual([1, 2, 3, 4, 5, 6]);
    // a[i, j, k] = 100i + 10j + k, shape (2, 3, 2), stored with i fastest.
    const cube: number[] = [];
    for (let k = 0; k < 2; k++)
      for (let j = 0; j < 3; j++) for (let i = 0; i < 2; i++) cube.push(100 * i + 10 * j + k);
    const c = readNpy(
      npy(head('<i2', '(2, 3, 2)', true), new Uint8Array(Int16Array.from(cube).buffer)),
      'cube.npy',
    );
    expect(values(c.data)).toEqual([0, 1, 10, 11, 20, 21, 100, 101, 110, 111, 120, 121]);
  });

  it('reads bools, bytes, float16 and a scalar; a version 2 header', () => {
    expect(
      values(readNpy(npy(head('|b1', '(3,)'), Uint8Array.from([1, 0, 1])), 'b.npy').data),
    ).toEqual([1, 0, 1]);
    expect(
      values(readNpy(npy(head('|u1', '(2,)'), Uint8Array.from([0, 255])), 'u.npy').data),
    ).toEqual([0, 255]);
    const half = bytes(4, (v) => {
      v.setUint16(0, 0x3c00, true);
      v.setUint16(2, 0xc000, true);
    });
    // float16 is kept as its bits (1 and -2), not rounded through another type.
    expect(values(readNpy(npy(head('<f2', '(2,)'), half), 'h.npy').data)).toEqual([0x3c00, 0xc000]);
    const scalar = readNpy(
      npy(head('<f4', '()'), new Uint8Array(Float32Array.from([7]).buffer), 2),
      's.npy',
    );
    expect(scalar.dims).toEqual([]);
    expect(values(scalar.data)).toEqual([7]);
  });

  it('reads the arrays of a compressed .npz by name', () => {
    const archive = zipSync(
      {
        'x.npy': npy(head('<f4', '(2,)'), new Uint8Array(Float32Array.from([1, 2]).buffer)),
        'y.npy': npy(
          head('>i2', '(1,)'),
          bytes(2, (v) => v.setInt16(0, -3, false)),
        ),
      },
      { level: 6 },
    );
    const arrays = readNpz(archive, 'data.npz');
    expect([...arrays.keys()]).toEqual(['x', 'y']);
    expect(values(arrays.get('y')!.data)).toEqual([-3]);
  });

  it('refuses what it cannot read, naming the file', () => {
    expect(() => readNpy(new TextEncoder().encode('a,b\n1,2\n'), 't.npy')).toThrow(
      "array file 't.npy': not a NumPy .npy file (no \\x93NUMPY magic)",
    );
    expect(() => readNpy(npy(head('<U5', '(2,)'), new Uint8Array(40)), 's.npy')).toThrow(
      "array file 's.npy': elements of type '<U5', which are not read",
    );
    expect(() => readNpy(npy(head('<f4', '(4,)'), new Uint8Array(8)), 'short.npy')).toThrow(
      "array file 'short.npy': shape (4) of '<f4' needs 16 bytes of data; the file has 8",
    );
    expect(() => readNpz(new Uint8Array([1, 2, 3]), 'x.npz')).toThrow(
      "array file 'x.npz': not a zip archive",
    );
  });
});
