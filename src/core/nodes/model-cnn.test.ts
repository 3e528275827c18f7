/**
 * `model.cnn` through `train.classifier` and `eval.accuracy` as a person
 * runs it (the engine's executor, onnxruntime-web's WASM backend): the
 * digits example's images train a CNN to a sensible score, its exported
 * `.onnx` takes images `[batch, 1, 14, 14]`, and a CNN wired to a table, or a
 * trained CNN to images of another size, fails naming both shapes.
 */
import { readFileSync } from 'node:fs';
import * as ort from 'onnxruntime-web';
import { describe, expect, it } from 'vitest';
import type { NodeFile } from '../catalog/kind';
import type { ModelValue } from '../catalog/values';
import { flowDocumentSchema, type FlowDocument } from '../flow/document';
import { EXPORT_INPUT } from '../onnx/mlp-export';
import { readOnnxSignature } from '../onnx/signature';
import type { TensorRuntime } from '../runtime/tensor-runtime';
import { sha256Hex } from '../run/digest';
import digitsCnn from '../../examples/digits-cnn.flow.json';
import iris from '../../examples/iris-table.flow.json';
import { runFlow, withParams } from './testing';

/** onnxruntime-web's WASM backend behind the engine's seam. */
const wasmRuntime: TensorRuntime = {
  info: { backend: 'wasm', adapter: null },
  async createSession(model) {
    const session = await ort.InferenceSession.create(model);
    return {
      backend: 'wasm',
      inputNames: session.inputNames,
      outputNames: session.outputNames,
      async run(feeds) {
        const input: Record<string, ort.Tensor> = {};
        for (const [name, feed] of Object.entries(feeds)) {
          if ('location' in feed) throw new Error('a host tensor was expected');
          input[name] = new ort.Tensor(feed.type, feed.data, feed.dims);
        }
        const out = await session.run(input);
        return Object.fromEntries(
          Object.entries(out).map(([name, t]) => [
            name,
            { type: 'float32', data: t.data as Float32Array, dims: [...t.dims] },
          ]),
        );
      },
      release: () => session.release(),
    };
  },
};

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

describe('model.cnn', () => {
  it('trains on the digits example to a sensible score, its loss falling', async () => {
    const { report, values } = await run(digits(), { epochs: 8, seed: 1 });
    expect(report.result.status).toBe('ok');
    const losses = report.metrics.get('train.loss')!;
    expect(losses.at(-1)!).toBeLessThan(0.5 * losses[0]!);
    expect(values.get('eval.accuracy')).toBeGreaterThan(0.7);
    expect(values.get('train.val_loss')).toBeLessThan(losses[0]!);
    const trained = values.get('train.model') as ModelValue;
    expect(trained.inputShape).toEqual([1, 14, 14]);
    const artifact = report.artifacts.find((a) => a.node === 'train' && a.name === 'model')!;
    const signature = readOnnxSignature(artifact.bytes);
    expect(signature.inputs.map((i) => [i.name, i.shape])).toEqual([
      [EXPORT_INPUT, ['batch', 1, 14, 14]],
    ]);
  });

  it('fails on a table, naming what the model takes and what the dataset has', async () => {
    const flow = flowDocumentSchema.parse(iris);
    const cnn: FlowDocument = {
      ...flow,
      nodes: flow.nodes.map((n) =>
        n.kind === 'model.mlp' ? { ...n, kind: 'model.cnn', params: {} } : n,
      ),
    };
    const { report } = await run(cnn, { epochs: 1 });
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
