import { gzipSync, zipSync } from 'fflate';
import { encode as encodePng } from 'fast-png';
import { encode as encodeJpeg } from 'jpeg-js';
import { describe, expect, it } from 'vitest';
import type { NodeFile } from '../catalog/kind';
import type { Dataset } from '../catalog/values';
import { FlowbenchError } from '../errors';
import { dataImages } from './data-images';
import { executeKind } from './testing';

const DIGEST = `sha256:${'1'.repeat(64)}`;

/** A `width × height` gray PNG whose pixel at (x, y) is `shade(x, y)` (0–255). */
function grayPng(width: number, height: number, shade: (x: number, y: number) => number) {
  const data = new Uint8Array(width * height);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) data[y * width + x] = shade(x, y);
  return encodePng({ width, height, data, channels: 1, depth: 8 });
}

/** A solid RGB PNG, 16-bit, with an alpha channel (which is dropped). */
function rgbaPng16(r: number, g: number, b: number) {
  const data = new Uint16Array(4 * 4 * 4);
  for (let p = 0; p < 16; p++) data.set([r * 257, g * 257, b * 257, 65535], p * 4);
  return encodePng({ width: 4, height: 4, data, channels: 4, depth: 16 });
}

const zip = (entries: Record<string, Uint8Array>, name = 'shapes.zip'): NodeFile => ({
  digest: DIGEST,
  name,
  mediaType: 'application/zip',
  bytes: zipSync(entries),
});

async function images(file: NodeFile, params: Record<string, unknown> = {}): Promise<Dataset> {
  const run = await executeKind(dataImages, { params: { file: DIGEST, ...params }, files: [file] });
  return run.outputs.get('dataset') as Dataset;
}

async function refusal(file: NodeFile): Promise<string> {
  const error: unknown = await images(file).then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof FlowbenchError))
    throw new Error(`expected a FlowbenchError: ${String(error)}`);
  expect(error.code).toBe('node-input');
  return error.message;
}

const stripes = (vertical: boolean) =>
  grayPng(8, 8, (x, y) => ((vertical ? x : y) % 2 === 0 ? 255 : 0));

describe('data.images', () => {
  it('labels each image by its folder, classes in sorted order, rows in path order', async () => {
    const data = await images(
      zip({
        'zebra/b.png': stripes(true),
        'zebra/a.png': stripes(true),
        'apple/x.png': grayPng(8, 8, () => 255),
        'README.txt': new TextEncoder().encode('not an image'),
        '__MACOSX/apple/._x.png': new Uint8Array([0, 1, 2]),
      }),
      { size: 4 },
    );
    expect(data.classNames).toEqual(['apple', 'zebra']);
    expect(Array.from(data.labels)).toEqual([0, 1, 1]);
    expect(data).toMatchObject({ count: 3, featureSize: 16, classes: 2 });
    // White is 1; two-pixel stripes averaged over 2×2 blocks are half gray.
    expect(Array.from(data.features.subarray(0, 16))).toEqual(Array(16).fill(1));
    expect(Array.from(data.features.subarray(16, 32))).toEqual(Array(16).fill(0.5));
  });

  it('keeps stripes at full size, and lays RGB rows out channel by channel', async () => {
    const data = await images(zip({ 'h/1.png': stripes(false), 'v/1.png': stripes(true) }), {
      size: 8,
    });
    expect(Array.from(data.features.subarray(0, 8))).toEqual(Array(8).fill(1)); // h: first row white
    expect(Array.from(data.features.subarray(64, 72))).toEqual([1, 0, 1, 0, 1, 0, 1, 0]); // v

    const colour = await images(
      zip({ 'red/1.png': rgbaPng16(255, 0, 0), 'teal/1.png': rgbaPng16(0, 128, 128) }),
      {
        size: 2,
        channels: 'rgb',
      },
    );
    expect(colour.featureSize).toBe(12);
    expect(Array.from(colour.features.subarray(0, 12))).toEqual([
      1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0,
    ]);
    expect(colour.features[12 + 4]).toBeCloseTo(128 / 255, 6);
  });

  it('reads JPEG beside PNG', async () => {
    const data = new Uint8Array(8 * 8 * 4).fill(255);
    const jpeg = encodeJpeg({ width: 8, height: 8, data }, 90).data;
    const dataset = await images(
      zip({ 'a/1.jpg': new Uint8Array(jpeg), 'b/1.png': stripes(true) }),
      { size: 4 },
    );
    for (const value of dataset.features.subarray(0, 16)) expect(value).toBeGreaterThan(0.98);
  });

  it('says what is wrong with an archive it cannot use, naming it and the entry', async () => {
    expect(await refusal(zip({ 'notes/readme.txt': new Uint8Array([1]) }))).toBe(
      "image archive 'shapes.zip' has no PNG or JPEG images: expected one folder of images per class, or an IDX images file and its labels file",
    );
    expect(await refusal(zip({ 'cats/1.png': stripes(true), 'cats/2.png': stripes(false) }))).toBe(
      "image archive 'shapes.zip' has one class folder (cats); a classifier needs two or more",
    );
    expect(await refusal(zip({ 'loose.png': stripes(true), 'a/1.png': stripes(true) }))).toMatch(
      /^image archive 'shapes\.zip' has the image loose\.png outside a class folder/,
    );
    expect(
      await refusal(zip({ 'a/1.png': new Uint8Array([1, 2, 3]), 'b/1.png': stripes(true) })),
    ).toBe("image archive 'shapes.zip' holds a/1.png, which is not a PNG or JPEG image");
    const cut = stripes(true).subarray(0, 40);
    expect(await refusal(zip({ 'a/1.png': cut, 'b/1.png': stripes(true) }))).toMatch(
      /^image archive 'shapes\.zip' holds a\/1\.png, which does not decode as PNG \(/,
    );
    expect(await refusal({ ...zip({}), bytes: new Uint8Array([1, 2, 3, 4]) })).toMatch(
      /^image archive 'shapes\.zip' is not a readable zip file/,
    );
  });

  describe('the IDX files of the handwritten-digit format', () => {
    /** An IDX file: magic, big-endian sizes, then the bytes. */
    function idx(magic: number, sizes: readonly number[], body: Uint8Array): Uint8Array {
      const out = new Uint8Array(4 + 4 * sizes.length + body.length);
      const view = new DataView(out.buffer);
      view.setUint32(0, magic);
      sizes.forEach((size, i) => view.setUint32(4 + 4 * i, size));
      out.set(body, 4 + 4 * sizes.length);
      return out;
    }
    // Three 2×2 digits: labels 7, 3, 7; the 3 is white, the 7s black with one white pixel.
    const pixels = new Uint8Array([255, 0, 0, 0, 255, 255, 255, 255, 255, 0, 0, 0]);
    const images3 = idx(0x803, [3, 2, 2], pixels);
    const labels3 = idx(0x801, [3], new Uint8Array([7, 3, 7]));

    it('reads an images file and its labels file, gzipped or not, classes named by label', async () => {
      const data = await images(
        zip({
          'train-images-idx3-ubyte.gz': gzipSync(images3),
          'train-labels-idx1-ubyte': labels3,
        }),
        { size: 1 },
      );
      expect(data.classNames).toEqual(['3', '7']);
      expect(Array.from(data.labels)).toEqual([1, 0, 1]);
      // Each 2×2 digit averaged into one pixel.
      expect(Array.from(data.features)).toEqual([0.25, 1, 0.25]);
    });

    it('names the file whose header or size is wrong', async () => {
      expect(await refusal(zip({ 'a-idx3-ubyte': labels3, 'a-idx1-ubyte': labels3 }))).toBe(
        "image archive 'shapes.zip' holds a-idx3-ubyte, which starts with 0x00000801, not the IDX magic 0x00000803",
      );
      const fewer = idx(0x801, [2], new Uint8Array([7, 3]));
      expect(await refusal(zip({ 'a-idx3-ubyte': images3, 'a-idx1-ubyte': fewer }))).toBe(
        "image archive 'shapes.zip' has 3 images but 2 labels",
      );
      expect(
        await refusal(zip({ 'a-idx3-ubyte': images3.subarray(0, 20), 'a-idx1-ubyte': labels3 })),
      ).toBe(
        "image archive 'shapes.zip' holds a-idx3-ubyte, which holds 20 bytes; its header promises 28",
      );
    });
  });
});
