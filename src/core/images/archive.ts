/**
 * A zip of labelled images — one folder per class, the folder's name the
 * class's — as a dataset's rows. Each image is decoded and resized to the
 * same square (see decode.ts), so every row has `C × size × size` values,
 * laid out `[C, H, W]` as convolutions read them.
 *
 * Entries are read in path order and classes named in sorted order, so the
 * same zip always makes the same rows and labels. What is not an image
 * (a README, `__MACOSX/` and dot files a zip tool adds) is passed over.
 */
import { unzipSync } from 'fflate';
import { FlowbenchError } from '../errors';
import { decodeImage, resizePixels, type ImageChannels } from './decode';
import { readIdxImages, readIdxLabels } from './idx';

export const IMAGE_ARCHIVE_ACCEPT = '.zip';

/** Decompressed images above this total are refused before they are inflated. */
export const MAX_ARCHIVE_BYTES = 512 * 1024 * 1024;

export interface ImageArchive {
  /** `count × C × size × size`, in [0, 1]. */
  readonly features: Float32Array;
  readonly labels: Int32Array;
  readonly count: number;
  readonly classNames: readonly string[];
  /** Images per class, in `classNames` order. */
  readonly perClass: readonly number[];
}

const IMAGE = /\.(png|jpe?g)$/i;
/** The handwritten-digit format's files, e.g. `train-images-idx3-ubyte` (or `.gz`). */
const IDX = /idx[13]-ubyte(\.gz)?$/i;

const refused = (file: string, problem: string) =>
  new FlowbenchError('node-input', { problem: `image archive '${file}' ${problem}` });

/** The image and IDX entries of a zip, by path. */
function unpack(file: string, bytes: Uint8Array): Record<string, Uint8Array> {
  let unpacked = 0;
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(bytes, {
      filter: (entry) => {
        const hidden = entry.name
          .split('/')
          .some((part) => part.startsWith('.') || part === '__MACOSX');
        if (hidden || !(IMAGE.test(entry.name) || IDX.test(entry.name))) return false;
        unpacked += entry.originalSize;
        return unpacked <= MAX_ARCHIVE_BYTES;
      },
    });
  } catch (error) {
    throw refused(
      file,
      `is not a readable zip file (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  if (unpacked > MAX_ARCHIVE_BYTES)
    throw refused(file, `unpacks to more than ${MAX_ARCHIVE_BYTES / 1024 / 1024} MB of images`);
  return entries;
}

/** The image entries of a zip and their class folders, in path order. */
function imageEntries(
  file: string,
  entries: Record<string, Uint8Array>,
): { path: string; folder: string; bytes: Uint8Array }[] {
  return Object.keys(entries)
    .filter((path) => IMAGE.test(path))
    .sort()
    .map((path) => {
      const parts = path.split('/');
      if (parts.length < 2)
        throw refused(
          file,
          `has the image ${path} outside a class folder: put each class's images in a folder named after it`,
        );
      return { path, folder: parts[parts.length - 2]!, bytes: entries[path]! };
    });
}

/**
 * Reads the zip `file` into rows of `channels` pixels resized to `size`.
 * `progress(done, total)` after each image. Throws `node-input` naming the
 * archive (and the entry) when it has no images, a single class, or an
 * image that does not decode.
 */
export async function readImageArchive(
  file: string,
  bytes: Uint8Array,
  options: { size: number; channels: ImageChannels },
  progress: (done: number, total: number) => Promise<void> | void = () => undefined,
): Promise<ImageArchive> {
  const entries = unpack(file, bytes);
  const idx = Object.keys(entries).filter((path) => IDX.test(path));
  if (idx.length > 0) return readIdxArchive(file, entries, idx, options, progress);
  const images = imageEntries(file, entries);
  if (images.length === 0)
    throw refused(
      file,
      'has no PNG or JPEG images: expected one folder of images per class, or an IDX images file and its labels file',
    );
  const classNames = [...new Set(images.map((image) => image.folder))].sort();
  if (classNames.length < 2)
    throw refused(file, `has one class folder (${classNames[0]}); a classifier needs two or more`);
  const { size, channels } = options;
  const rowSize = (channels === 'rgb' ? 3 : 1) * size * size;
  const features = new Float32Array(images.length * rowSize);
  const labels = new Int32Array(images.length);
  const perClass = classNames.map(() => 0);
  for (const [row, image] of images.entries()) {
    try {
      features.set(decodeImage(image.bytes, size, channels), row * rowSize);
    } catch (error) {
      throw refused(
        file,
        `holds ${image.path}, which ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const label = classNames.indexOf(image.folder);
    labels[row] = label;
    perClass[label]!++;
    await progress(row + 1, images.length);
  }
  return { features, labels, count: images.length, classNames, perClass };
}

/** The IDX pair of a zip (one images file, one labels file) as rows; see idx.ts. */
async function readIdxArchive(
  file: string,
  entries: Record<string, Uint8Array>,
  paths: readonly string[],
  options: { size: number; channels: ImageChannels },
  progress: (done: number, total: number) => Promise<void> | void,
): Promise<ImageArchive> {
  const imagePaths = paths.filter((path) => /idx3/i.test(path));
  const labelPaths = paths.filter((path) => /idx1/i.test(path));
  if (imagePaths.length !== 1 || labelPaths.length !== 1)
    throw refused(
      file,
      `holds ${paths.join(', ')}; expected one IDX images file (…idx3-ubyte) and one IDX labels file (…idx1-ubyte)`,
    );
  const read = <T>(path: string, how: (bytes: Uint8Array) => T): T => {
    try {
      return how(entries[path]!);
    } catch (error) {
      throw refused(
        file,
        `holds ${path}, which ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  };
  const images = read(imagePaths[0]!, readIdxImages);
  const labelBytes = read(labelPaths[0]!, readIdxLabels);
  if (labelBytes.length !== images.count)
    throw refused(file, `has ${images.count} images but ${labelBytes.length} labels`);
  const values = [...new Set(labelBytes)].sort((a, b) => a - b);
  if (values.length < 2)
    throw refused(file, `has one class (${values[0] ?? 'none'}); a classifier needs two or more`);
  const { size, channels } = options;
  const rowSize = (channels === 'rgb' ? 3 : 1) * size * size;
  const features = new Float32Array(images.count * rowSize);
  const labels = new Int32Array(images.count);
  const perClass = values.map(() => 0);
  const area = images.height * images.width;
  const gray = new Float32Array(area);
  for (let row = 0; row < images.count; row++) {
    for (let p = 0; p < area; p++) gray[p] = images.pixels[row * area + p]! / 255;
    const pixels = { width: images.width, height: images.height, channels: 1 as const, data: gray };
    features.set(resizePixels(pixels, size, channels), row * rowSize);
    const label = values.indexOf(labelBytes[row]!);
    labels[row] = label;
    perClass[label]!++;
    await progress(row + 1, images.count);
  }
  return { features, labels, count: images.count, classNames: values.map(String), perClass };
}
