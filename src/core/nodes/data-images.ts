/**
 * `data.images`: a dataset from the person's own labelled images — a `.zip`
 * with one folder per class — picked in the inspector and kept in the
 * browser by digest, like `data.table`'s table. Decoded here, in the engine,
 * to `[C, size, size]` pixels in [0, 1] per row (see images/archive.ts).
 */
import { defineNodeKind } from '../catalog/kind';
import { FlowbenchError } from '../errors';
import { IMAGE_ARCHIVE_ACCEPT, readImageArchive } from '../images/archive';

/** Images decoded between checks for a cancel and progress reports. */
const REPORT_EVERY = 32;

export const dataImages = defineNodeKind({
  kind: 'data.images',
  version: 2,
  cache: 'pure',
  title: 'Images',
  category: 'data',
  description:
    'A dataset from your own images: a .zip with one folder of PNG or JPEG images per class (or the IDX files of the handwritten-digit format), resized to a square and scaled to [0, 1].',
  params: {
    file: {
      type: 'file',
      accept: IMAGE_ARCHIVE_ACCEPT,
      default: '',
      description:
        'The .zip of class folders (picked in the inspector; the flow keeps its digest).',
    },
    size: {
      type: 'int',
      min: 4,
      max: 128,
      default: 28,
      description: 'Each image is resized to size × size pixels.',
    },
    channels: {
      type: 'enum',
      options: ['grayscale', 'rgb'],
      default: 'grayscale',
      description: 'One gray channel, or three colour channels, per pixel.',
    },
  },
  inputs: [],
  outputs: [
    {
      name: 'dataset',
      type: 'dataset',
      description: 'One row per image ([channels, size, size] values), labelled by its folder.',
    },
  ],
  async execute(ctx) {
    const { file: digest, size, channels } = ctx.params;
    if (digest === '')
      throw new FlowbenchError('node-input', {
        problem:
          "no image archive: pick a .zip with one folder of images per class for param 'file' in the inspector",
      });
    const file = await ctx.readFile(digest);
    const archive = await readImageArchive(
      file.name,
      file.bytes,
      { size, channels },
      async (done, total) => {
        if (done % REPORT_EVERY !== 0 && done !== total) return;
        ctx.progress(done, total);
        await ctx.checkpoint();
      },
    );
    const planes = channels === 'rgb' ? 3 : 1;
    ctx.log(
      `${file.name}: ${archive.count} images in ${archive.classNames.length} classes ` +
        `(${archive.classNames.map((name, i) => `${name} ${archive.perClass[i]}`).join(', ')}); ` +
        `each ${planes}×${size}×${size}`,
    );
    ctx.emit('dataset', {
      kind: 'dataset',
      name: file.name,
      features: archive.features,
      labels: archive.labels,
      count: archive.count,
      featureSize: planes * size * size,
      shape: [planes, size, size],
      classes: archive.classNames.length,
      classNames: archive.classNames,
    });
  },
});
