/**
 * One image file (PNG or JPEG) as pixels in [0, 1], resized to a square of
 * `size` and reduced to the channels asked for.
 *
 * Idea: decode with small pure-JavaScript decoders (fast-png, jpeg-js) and
 * resize with our own area average, not with the browser's
 * `createImageBitmap`: the same bytes then give the same pixels in every
 * browser, on every GPU and under Node, so a run's dataset — and its
 * digest in the node-output cache — does not depend on where it ran.
 * Trade-off: slower than a hardware decoder, which matters little for the
 * small images a browser trains on (a few thousand at 28×28 decode in
 * about a second).
 */
import { convertIndexedToRgb, decode as decodePng, hasPngSignature } from 'fast-png';
import { decode as decodeJpeg } from 'jpeg-js';

export type ImageChannels = 'grayscale' | 'rgb';

/** An image decoded to interleaved RGB in [0, 1]. */
interface Rgb {
  width: number;
  height: number;
  /** `width × height × 3`, row-major, interleaved. */
  rgb: Float32Array;
}

const isJpeg = (bytes: Uint8Array) => bytes[0] === 0xff && bytes[1] === 0xd8;

function fromPng(bytes: Uint8Array): Rgb {
  const png = decodePng(bytes);
  const { width, height } = png;
  const indexed = png.palette !== undefined;
  const data = indexed ? convertIndexedToRgb(png) : png.data;
  const channels = indexed ? png.palette![0]!.length : png.channels;
  const max = indexed ? 255 : 2 ** png.depth - 1;
  const rgb = new Float32Array(width * height * 3);
  for (let p = 0; p < width * height; p++) {
    const at = p * channels;
    // Gray (+alpha) has one colour channel; RGB (+alpha) three. Alpha is dropped.
    const colour = channels >= 3 ? 3 : 1;
    for (let c = 0; c < 3; c++) rgb[p * 3 + c] = data[at + (colour === 3 ? c : 0)]! / max;
  }
  return { width, height, rgb };
}

function fromJpeg(bytes: Uint8Array): Rgb {
  const jpeg = decodeJpeg(bytes, { useTArray: true, formatAsRGBA: true, maxResolutionInMP: 50 });
  const { width, height, data } = jpeg;
  const rgb = new Float32Array(width * height * 3);
  for (let p = 0; p < width * height; p++)
    for (let c = 0; c < 3; c++) rgb[p * 3 + c] = data[p * 4 + c]! / 255;
  return { width, height, rgb };
}

/** Decodes PNG or JPEG `bytes`; throws an Error saying why when they are neither or broken. */
function decodeRgb(bytes: Uint8Array): Rgb {
  const format = hasPngSignature(bytes) ? 'PNG' : isJpeg(bytes) ? 'JPEG' : null;
  if (format === null) throw new Error('is not a PNG or JPEG image');
  try {
    return format === 'PNG' ? fromPng(bytes) : fromJpeg(bytes);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`does not decode as ${format} (${reason})`, { cause: error });
  }
}

/** Pixels in [0, 1]: interleaved RGB (`channels` 3) or gray (`channels` 1), row-major. */
export interface Pixels {
  readonly width: number;
  readonly height: number;
  readonly channels: 1 | 3;
  readonly data: Float32Array;
}

/**
 * `pixels` as `[C, size, size]` floats (C = 1 for grayscale, 3 for RGB),
 * each output pixel the average of the source pixels it covers (a box
 * filter: what downscaling needs; an upscaled image repeats pixels).
 */
export function resizePixels(pixels: Pixels, size: number, channels: ImageChannels): Float32Array {
  const { width, height, data } = pixels;
  if (width === 0 || height === 0) throw new Error('has no pixels');
  const from = pixels.channels;
  const planes = channels === 'rgb' ? 3 : 1;
  const out = new Float32Array(planes * size * size);
  const sum = [0, 0, 0];
  for (let y = 0; y < size; y++) {
    const y0 = Math.floor((y * height) / size);
    const y1 = Math.max(y0 + 1, Math.floor(((y + 1) * height) / size));
    for (let x = 0; x < size; x++) {
      const x0 = Math.floor((x * width) / size);
      const x1 = Math.max(x0 + 1, Math.floor(((x + 1) * width) / size));
      sum.fill(0);
      for (let sy = y0; sy < y1; sy++)
        for (let sx = x0; sx < x1; sx++)
          for (let c = 0; c < 3; c++)
            sum[c]! += data[(sy * width + sx) * from + (from === 3 ? c : 0)]!;
      const n = (y1 - y0) * (x1 - x0);
      if (planes === 3)
        for (let c = 0; c < 3; c++) out[c * size * size + y * size + x] = sum[c]! / n;
      // ITU-R BT.601 luma, as image libraries convert to gray (gray stays gray: the weights sum to 1).
      else out[y * size + x] = (0.299 * sum[0]! + 0.587 * sum[1]! + 0.114 * sum[2]!) / n;
    }
  }
  return out;
}

/** PNG or JPEG `bytes` as `[C, size, size]` floats in [0, 1] (see `resizePixels`). */
export function decodeImage(
  bytes: Uint8Array,
  size: number,
  channels: ImageChannels,
): Float32Array {
  const { width, height, rgb } = decodeRgb(bytes);
  return resizePixels({ width, height, channels: 3, data: rgb }, size, channels);
}
