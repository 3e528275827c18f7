/** `data.synthetic`: a seeded 2-D classification dataset (spirals, moons or blobs). */
import { defineNodeKind } from '../catalog/kind';
import type { Dataset } from '../catalog/values';
import { createRandom, normal, type Random } from '../random';

type Shape = 'spirals' | 'moons' | 'blobs';

function point(shape: Shape, label: number, classes: number, random: Random): [number, number] {
  switch (shape) {
    case 'spirals': {
      const r = random();
      const angle = (label * 2 * Math.PI) / classes + r * 3 * Math.PI;
      return [r * Math.cos(angle), r * Math.sin(angle)];
    }
    case 'moons': {
      const t = random() * Math.PI;
      const flip = label % 2 === 1;
      const shift = Math.floor(label / 2) * 2.5;
      return flip
        ? [1 - Math.cos(t) + shift, 0.5 - Math.sin(t)]
        : [Math.cos(t) + shift, Math.sin(t)];
    }
    case 'blobs': {
      const angle = (label * 2 * Math.PI) / classes;
      return [1.5 * Math.cos(angle), 1.5 * Math.sin(angle)];
    }
  }
}

export const dataSynthetic = defineNodeKind({
  kind: 'data.synthetic',
  version: 1,
  cache: 'pure',
  title: 'Synthetic data',
  category: 'data',
  description:
    'A seeded 2-D classification dataset: interleaved spirals, half moons or Gaussian blobs.',
  params: {
    shape: {
      type: 'enum',
      options: ['spirals', 'moons', 'blobs'],
      default: 'spirals',
      description: 'The shape of the classes.',
    },
    n: { type: 'int', default: 1000, min: 10, max: 1_000_000, description: 'Number of points.' },
    classes: { type: 'int', default: 2, min: 2, max: 16, description: 'Number of classes.' },
    noise: {
      type: 'number',
      default: 0.05,
      min: 0,
      max: 5,
      description: 'Standard deviation of Gaussian noise added to each coordinate.',
    },
    seed: { type: 'int', default: 0, min: 0, description: 'Seed of the generator.' },
  },
  inputs: [],
  outputs: [{ name: 'dataset', type: 'dataset', description: 'The generated points and labels.' }],
  execute(ctx) {
    const { shape, n, classes, noise, seed } = ctx.params;
    const random = createRandom(seed);
    const features = new Float32Array(n * 2);
    const labels = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const label = i % classes;
      const [x, y] = point(shape, label, classes, random);
      features[2 * i] = x + noise * normal(random);
      features[2 * i + 1] = y + noise * normal(random);
      labels[i] = label;
    }
    const dataset: Dataset = {
      kind: 'dataset',
      name: shape,
      features,
      labels,
      count: n,
      featureSize: 2,
      classes,
    };
    ctx.log(`${n} points, ${classes} classes (${shape})`);
    ctx.emit('dataset', dataset);
    return Promise.resolve();
  },
});
