/**
 * The model a trainer keeps is a standalone `.onnx`: onnxruntime-node (not
 * the runtime Flowbench runs on) loads it and, fed the table's raw rows,
 * answers what Flowbench's own inference answers for the trained weights on
 * the same rows, standardised as evaluation standardises them.
 */
import { readFileSync } from 'node:fs';
import * as ortNode from 'onnxruntime-node';
import * as ort from 'onnxruntime-web';
import { describe, expect, it } from 'vitest';
import { standardiseLike } from '../catalog/standardise';
import type { Dataset, ModelValue } from '../catalog/values';
import { flowDocumentSchema } from '../flow/document';
import { buildMlpInference, initMlpWeights, type MlpSpec } from '../onnx/mlp';
import { buildMlpExport, EXPORT_INPUT } from '../onnx/mlp-export';
import { withMetadataProps } from '../onnx/proto';
import { readOnnxSignature } from '../onnx/signature';
import { wasmRuntime } from '../onnx/testing';
import { createRandom } from '../random';
import { sha256Hex } from '../run/digest';
import iris from '../../examples/iris-table.flow.json';
import { runFlow } from './testing';

/** Flowbench's answer: its inference graph, weights fed as evaluation feeds them, on standardised rows. */
async function flowbenchOutputs(
  model: ModelValue,
  rows: Dataset,
): Promise<Record<string, Float32Array>> {
  const data = standardiseLike(rows, model);
  if (model.architecture !== 'mlp') throw new Error('an MLP was expected');
  const spec: MlpSpec = {
    inputSize: model.inputSize!,
    hidden: model.hidden,
    outputSize: model.outputSize!,
    activation: model.activation,
  };
  const graph = buildMlpInference(spec);
  const session = await ort.InferenceSession.create(graph.model);
  const feeds: Record<string, ort.Tensor> = {
    [graph.inputs.x]: new ort.Tensor('float32', data.features, [data.count, data.featureSize]),
  };
  for (const slot of model.weights!.layout)
    feeds[graph.inputs.weights[slot.name]!] = new ort.Tensor(
      'float32',
      model.weights!.values[slot.name]!,
      slot.dims,
    );
  const out = await session.run(feeds);
  return Object.fromEntries(Object.entries(out).map(([k, t]) => [k, t.data as Float32Array]));
}

/** The exported file's answer on raw rows, in onnxruntime-node. */
async function exportedOutputs(
  bytes: Uint8Array,
  rows: Dataset,
): Promise<{ session: ortNode.InferenceSession; out: Record<string, Float32Array> }> {
  const session = await ortNode.InferenceSession.create(bytes);
  const out = await session.run({
    [EXPORT_INPUT]: new ortNode.Tensor('float32', rows.features, [rows.count, rows.featureSize]),
  });
  return {
    session,
    out: Object.fromEntries(Object.entries(out).map(([k, t]) => [k, t.data as Float32Array])),
  };
}

function expectClose(actual: Float32Array, expected: Float32Array): void {
  expect(actual.length).toBe(expected.length);
  const worst = actual.reduce((m, v, i) => Math.max(m, Math.abs(v - expected[i]!)), 0);
  expect(worst).toBeLessThan(1e-5);
}

describe('a trained model leaves Flowbench as a standalone .onnx', () => {
  it('the Iris example trained here answers in onnxruntime-node as Flowbench answers, from raw rows', async () => {
    const csv = new Uint8Array(readFileSync(new URL('../../examples/iris.csv', import.meta.url)));
    const digest = `sha256:${await sha256Hex(csv)}`;
    const values = new Map<string, unknown>();
    const report = await runFlow(flowDocumentSchema.parse(iris), {
      runtime: wasmRuntime,
      inputs: { epochs: 15, seed: 3 },
      readFile: (asked) =>
        asked === digest
          ? Promise.resolve({ digest, name: 'iris.csv', mediaType: 'text/csv', bytes: csv })
          : Promise.reject(new Error(`no file ${asked}`)),
      onEmit: (metric, value) => values.set(metric, value),
    });
    expect(report.result.status).toBe('ok');
    const trained = values.get('train.model') as ModelValue;
    const raw = values.get('data.dataset') as Dataset;
    expect(trained.standardisation?.columns.length).toBeGreaterThan(0);
    const artifact = report.artifacts.find((a) => a.node === 'train' && a.name === 'model')!;
    expect(artifact.mediaType).toBe('application/onnx');

    // Stamped with its run as a download is; the stamp leaves the model loadable.
    const file = withMetadataProps(artifact.bytes, { 'flowbench.run_id': 'run-1' });
    // `model.onnx` reads it as a model whose one input takes the table's rows.
    const signature = readOnnxSignature(file);
    expect(signature.producer).toBe('Flowbench');
    expect(signature.inputs.map((i) => [i.name, i.type, i.shape])).toEqual([
      [EXPORT_INPUT, 'float32', ['batch', raw.featureSize]],
    ]);
    const { session, out } = await exportedOutputs(file, raw);
    expect(session.inputNames).toEqual([EXPORT_INPUT]);
    expect(session.outputNames).toEqual(['logits', 'probabilities']);
    const expected = await flowbenchOutputs(trained, raw);
    expectClose(out.logits!, expected.logits!);
    expectClose(out.probabilities!, expected.probabilities!);
    // Trained, not random: most rows get their own class.
    const classes = raw.classes;
    let right = 0;
    for (let r = 0; r < raw.count; r++) {
      const row = Array.from(out.probabilities!.subarray(r * classes, (r + 1) * classes));
      if (row.indexOf(Math.max(...row)) === raw.labels[r]) right++;
    }
    expect(right / raw.count).toBeGreaterThan(0.8);
    // Picked in `model.onnx` and fed the table's raw rows, it scores what it scores outside.
    const fileDigest = `sha256:${await sha256Hex(file)}`;
    const roundTrip = new Map<string, unknown>();
    const back = await runFlow(
      flowDocumentSchema.parse({
        format: 'flowbench.flow/1',
        name: 'exported iris',
        inputs: [],
        outputs: [],
        nodes: [
          { id: 'data', kind: 'data.table', params: { file: digest, label: 'species' } },
          { id: 'infer', kind: 'model.onnx', params: { file: fileDigest } },
        ],
        edges: [{ from: 'data.dataset', to: 'infer.dataset' }],
      }),
      {
        runtime: wasmRuntime,
        readFile: (asked) =>
          asked === digest
            ? Promise.resolve({ digest, name: 'iris.csv', mediaType: 'text/csv', bytes: csv })
            : Promise.resolve({
                digest: fileDigest,
                name: 'model.onnx',
                mediaType: 'application/onnx',
                bytes: file,
              }),
        onEmit: (metric, value) => roundTrip.set(metric, value),
      },
    );
    expect(back.result.status).toBe('ok');
    expect(roundTrip.get('infer.accuracy')).toBeCloseTo(right / raw.count, 10);
    // What the columns and classes are travels in the file.
    const text = new TextDecoder().decode(file);
    expect(text).toContain('Flowbench');
    expect(text).toContain('flowbench.run_id');
    expect(text).toContain(JSON.stringify(raw.classNames));
    expect(text).toContain(JSON.stringify(raw.featureNames));
  });

  it('a regressor answers `prediction`, standardising only the columns it was fitted on', async () => {
    const spec: MlpSpec = { inputSize: 3, hidden: [5], outputSize: 1, activation: 'tanh' };
    const weights = initMlpWeights(spec, createRandom(7));
    const standardisation = {
      state: 'fitted' as const,
      columns: [0, 2],
      mean: [10, -4],
      std: [2.5, 0.5],
      rows: 10,
    };
    const features = Float32Array.from([12, 0.3, -4.5, 7, -1, -3, 10, 2, -4]);
    const rows: Dataset = {
      kind: 'dataset',
      name: 'rows',
      features,
      labels: new Int32Array(3),
      count: 3,
      featureSize: 3,
      classes: 1,
      task: 'regression',
      standardisation: { state: 'pending', columns: [0, 2] },
    };
    const model: ModelValue = {
      kind: 'model',
      architecture: 'mlp',
      hidden: spec.hidden,
      activation: spec.activation,
      inputSize: 3,
      outputSize: 1,
      weights,
      standardisation,
    };
    const bytes = buildMlpExport(spec, weights, { task: 'regression', standardisation });
    const { session, out } = await exportedOutputs(bytes, rows);
    expect(session.outputNames).toEqual(['prediction']);
    expectClose(out.prediction!, (await flowbenchOutputs(model, rows)).logits!);
  });
});
