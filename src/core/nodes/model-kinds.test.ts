/**
 * The model kinds beside the MLP through `train.classifier` and
 * `eval.accuracy` as a person runs them (the engine's executor,
 * onnxruntime-web's WASM backend): the digits example's images train a CNN
 * and the Iris table a conv1d and an attention model to a sensible score,
 * their loss falling; each
 * exported `.onnx` takes rows as the model does; a model wired to rows it
 * does not fit fails naming what it takes and what the dataset has.
 */
import { readFileSync } from 'node:fs';
import * as ort from 'onnxruntime-web';
import { describe, expect, it } from 'vitest';
import type { NodeFile } from '../catalog/kind';
import { standardiseLike } from '../catalog/standardise';
import type { Dataset, ModelValue, TrainedModel } from '../catalog/values';
import { flowDocumentSchema, type FlowDocument } from '../flow/document';
import { validateFlow } from '../flow/validate';
import { EXPORT_INPUT } from '../onnx/mlp-export';
import { buildBlockInference } from '../onnx/model-blocks';
import { readOnnxSignature } from '../onnx/signature';
import { wasmRuntime } from '../onnx/testing';
import { sha256Hex } from '../run/digest';
import digitsCnn from '../../examples/digits-cnn.flow.json';
import iris from '../../examples/iris-table.flow.json';
import irisAttention from '../../examples/iris-attention.flow.json';
import { builtinCatalog } from './index';
import { trainedBlockFor } from './model-fit';
import { runFlow, withParams } from './testing';

async function exampleFile(name: string, mediaType: string): Promise<NodeFile> {
  const bytes = new Uint8Array(readFileSync(new URL(`../../examples/${name}`, import.meta.url)));
  return { digest: `sha256:${await sha256Hex(bytes)}`, name, mediaType, bytes };
}

async function run(flow: FlowDocument, inputs: Record<string, number>) {
  const files = [
    await exampleFile('digits.zip', 'application/zip'),
    await exampleFile('iris.csv', 'text/csv'),
  ];
  const values = new Map<string, unknown>();
  const report = await runFlow(flow, {
    runtime: wasmRuntime,
    inputs,
    readFile: (digest) => {
      const file = files.find((f) => f.digest === digest);
      return file ? Promise.resolve(file) : Promise.reject(new Error(`no file ${digest}`));
    },
    onEmit: (metric, value) => values.set(metric, value),
  });
  return { report, values };
}

const digits = () => flowDocumentSchema.parse(digitsCnn);

/** The digits example with its model node made a `kind` with default params. */
const digitsWith = (kind: string): FlowDocument => {
  const images = digits();
  return {
    ...images,
    nodes: images.nodes.map((n) => (n.id === 'model' ? { ...n, kind, params: {} } : n)),
  };
};

/** The Iris table example with its MLP made a `kind` with `params`. */
const irisWith = (kind: string, params: Record<string, number>): FlowDocument => {
  const flow = flowDocumentSchema.parse(iris);
  return {
    ...flow,
    nodes: flow.nodes.map((n) => (n.kind === 'model.mlp' ? { ...n, kind, params } : n)),
  };
};

/** Runs `flow`, which must end well, its training loss falling to under half its first value. */
async function trainedBy(flow: FlowDocument, inputs: Record<string, number>) {
  const { report, values } = await run(flow, inputs);
  expect(report.result.status).toBe('ok');
  const losses = report.metrics.get('train.loss')!;
  expect(losses.at(-1)!).toBeLessThan(0.5 * losses[0]!);
  const artifact = report.artifacts.find((a) => a.node === 'train' && a.name === 'model')!;
  return { values, losses, artifact };
}

/** The exported file's one input takes rows of `shape`. */
function expectExportTakes(artifact: { bytes: Uint8Array }, shape: readonly number[]): void {
  expect(readOnnxSignature(artifact.bytes).inputs.map((i) => [i.name, i.shape])).toEqual([
    [EXPORT_INPUT, ['batch', ...shape]],
  ]);
}

/**
 * Fed the Iris table's raw rows (one signal of 4), the exported file answers
 * as Flowbench's own inference does on the standardised rows.
 */
async function expectExportAnswersAsFlowbench(
  values: ReadonlyMap<string, unknown>,
  artifact: { bytes: Uint8Array },
): Promise<void> {
  const raw = values.get('data.dataset') as Dataset;
  const trained = values.get('train.model') as TrainedModel;
  const block = trainedBlockFor(trained, raw, 'dataset');
  const ours = await ort.InferenceSession.create(buildBlockInference(block, trained.weights).model);
  const rows = standardiseLike(raw, trained).features;
  const expected = (await ours.run({ x: new ort.Tensor('float32', rows, [raw.count, 1, 4]) }))
    .probabilities!.data as Float32Array;
  const exported = await ort.InferenceSession.create(artifact.bytes);
  const answered = (
    await exported.run({
      [EXPORT_INPUT]: new ort.Tensor('float32', raw.features, [raw.count, 1, 4]),
    })
  ).probabilities!.data as Float32Array;
  expect(answered.length).toBe(raw.count * raw.classes);
  expect(answered.reduce((m, v, i) => Math.max(m, Math.abs(v - expected[i]!)), 0)).toBeLessThan(
    1e-5,
  );
}

describe('model.cnn', () => {
  it('trains on the digits example to a sensible score, its loss falling', async () => {
    const { values, losses, artifact } = await trainedBy(digits(), { epochs: 8, seed: 1 });
    expect(values.get('eval.accuracy')).toBeGreaterThan(0.7);
    expect(values.get('train.val_loss')).toBeLessThan(losses[0]!);
    const trained = values.get('train.model') as ModelValue;
    expect(trained.inputShape).toEqual([1, 14, 14]);
    expectExportTakes(artifact, [1, 14, 14]);
  });

  it('fails on a table, naming what the model takes and what the dataset has', async () => {
    const { report } = await run(irisWith('model.cnn', {}), { epochs: 1 });
    expect(report.result.status).toBe('error');
    const train = [...report.outcomes.entries()].find(([, o]) => o.status === 'error');
    expect(train?.[0]).toBe('train');
    expect(train?.[1].error).toContain(
      "model.cnn takes images [channels, height, width]; input 'dataset' (iris.csv/train) has rows of 4 features: load images with data.images, or train a model.mlp",
    );
  });

  it('fails when its params do not fit the images, naming the param and the images', async () => {
    const flow = withParams(digits(), 'model', { blocks: 4 });
    const { report } = await run(flow, { epochs: 1 });
    expect(report.outcomes.get('train')?.error).toContain(
      "model.cnn does not fit input 'dataset' (digits.zip/train, images 1×14×14): param blocks must leave at least one pixel after its 2×2 pools: a 14×14 image takes at most 3, got 4",
    );
  });
});

describe.each([
  {
    kind: 'model.conv1d',
    example: "trains on a table's rows as signals, its loss falling",
    flow: () => irisWith('model.conv1d', { channels: 16, kernel: 3 }),
    epochs: 30,
    accuracy: 0.8,
  },
  {
    kind: 'model.attention',
    example:
      "trains on a table's columns as positions (the iris-attention example), its loss falling",
    flow: () => flowDocumentSchema.parse(irisAttention),
    epochs: 40,
    accuracy: 0.9,
    valLoss: 0.5,
  },
])('$kind on a table', ({ kind, example, flow, epochs, accuracy, valLoss }) => {
  it(example, async () => {
    const { values, artifact } = await trainedBy(flow(), { epochs, seed: 0 });
    expect(values.get('eval.accuracy')).toBeGreaterThan(accuracy);
    if (valLoss !== undefined) expect(values.get('train.val_loss')).toBeLessThan(valLoss);
    const trained = values.get('train.model') as ModelValue;
    expect(trained.inputShape).toEqual([1, 4]);
    expectExportTakes(artifact, [1, 4]);
    await expectExportAnswersAsFlowbench(values, artifact);
  });

  it('fails on images, naming what it takes and what the dataset has', async () => {
    expect(
      (await run(digitsWith(kind), { epochs: 1 })).report.outcomes.get('train')?.error,
    ).toContain(
      `${kind} takes signals [channels, length] or rows of features; input 'dataset' (digits.zip/train) has rows of images 1×14×14: train a model.cnn on images`,
    );
  });
});

describe('model.conv1d', () => {
  it('fails on a kernel longer than the row, naming the param and the length', async () => {
    const long = irisWith('model.conv1d', { channels: 4, kernel: 5 });
    expect((await run(long, { epochs: 1 })).report.outcomes.get('train')?.error).toContain(
      "model.conv1d does not fit input 'dataset' (iris.csv/train, signals 1×4): param kernel must be at most the length (4), got 5",
    );
  });
});

describe('model.attention', () => {
  it('trains with train.regressor on a real target, scored by eval.regression', async () => {
    // Petal width from the other three measurements and the species (one-hot).
    const flow = flowDocumentSchema.parse(irisAttention);
    const regression: FlowDocument = {
      ...flow,
      outputs: ['r2'],
      nodes: flow.nodes.map((n) => {
        if (n.id === 'data') return { ...n, params: { ...n.params, label: 'petal_width' } };
        if (n.id === 'train') return { ...n, kind: 'train.regressor' };
        if (n.id === 'eval') return { ...n, kind: 'eval.regression' };
        return n;
      }),
    };
    const { values } = await trainedBy(regression, { epochs: 40, seed: 0 });
    expect(values.get('eval.r2')).toBeGreaterThan(0.8);
    expect((values.get('train.model') as TrainedModel).inputShape).toEqual([1, 6]);
  });

  it('refuses a width out of range, naming the param and its range', () => {
    const issues = validateFlow(irisWith('model.attention', { width: 0 }), builtinCatalog);
    expect(issues.map((i) => i.message)).toEqual([
      "node 'model' param 'width': expected an integer from 1 to 256, got 0",
    ]);
  });

  it('trains with four heads, its exported file taking the heads along', async () => {
    const { values, artifact } = await trainedBy(
      irisWith('model.attention', { width: 16, heads: 4 }),
      { epochs: 30, seed: 0 },
    );
    expect(values.get('eval.accuracy')).toBeGreaterThan(0.85);
    const trained = values.get('train.model') as TrainedModel;
    expect(trained).toMatchObject({ architecture: 'attention', width: 16, heads: 4 });
    // The file splits the attention into the same four heads: it answers as Flowbench does.
    const block = trainedBlockFor(trained, values.get('data.dataset') as Dataset, 'dataset');
    expect(block).toMatchObject({ architecture: 'pooled-attention', heads: 4 });
    await expectExportAnswersAsFlowbench(values, artifact);
  });

  it('refuses heads that do not divide the width before anything runs, saying which widths fit', () => {
    const issues = validateFlow(
      irisWith('model.attention', { width: 16, heads: 3 }),
      builtinCatalog,
    );
    expect(issues.map((i) => i.message)).toEqual([
      "node 'model' param 'heads': 3 does not divide the width 16: each head takes width / heads of every position's vector, so the width must be a multiple of 3 (15 or 18); or pick heads that divide 16",
    ]);
  });
});

describe('a trained model on rows of another shape', () => {
  it('is refused, naming what the model takes and what the dataset has', () => {
    const model: TrainedModel = {
      kind: 'model',
      architecture: 'cnn',
      filters: 4,
      kernel: 3,
      blocks: 2,
      inputSize: 196,
      inputShape: [1, 14, 14],
      outputSize: 10,
      weights: { layout: [], values: {} },
    };
    const small: Dataset = {
      kind: 'dataset',
      name: 'small.zip',
      features: new Float32Array(2 * 64),
      labels: new Int32Array(2),
      count: 2,
      featureSize: 64,
      classes: 10,
      shape: [1, 8, 8],
    };
    expect(() => trainedBlockFor(model, small, 'dataset')).toThrow(
      "the model takes images 1×14×14 and gives 10 outputs; input 'dataset' (small.zip) has images 1×8×8 and 10 classes",
    );
    const table: Dataset = { ...small, name: 'rows.csv', shape: undefined, featureSize: 196 };
    expect(() =>
      trainedBlockFor(model, { ...table, features: new Float32Array(392) }, 'dataset'),
    ).toThrow(
      "model.cnn takes images [channels, height, width]; input 'dataset' (rows.csv) has rows of 196 features",
    );
  });
});
