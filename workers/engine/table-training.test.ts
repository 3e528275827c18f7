/**
 * Tables trained end to end on the real onnxruntime (WASM): the iris example
 * as it ships (classification: the loss falls, the held-out rows score well,
 * the confusion matrix counts them) and a regression table (the Huber loss
 * falls and R² is high).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { NodeFile } from '../../src/core/catalog/kind';
import { readConfusion } from '../../src/core/catalog/confusion';
import { flowDocumentSchema, FLOW_FORMAT, type FlowDocument } from '../../src/core/flow/document';
import { createRandom, normal } from '../../src/core/random';
import { runOnWasm, storedFile } from './testing';

const stored = (name: string, bytes: Uint8Array) => storedFile(name, bytes, 'text/csv');

async function run(flow: FlowDocument, files: NodeFile[], inputs: Record<string, number> = {}) {
  const { result, errors, emitted, artifacts } = await runOnWasm(flow, files, inputs);
  const metrics = new Map<string, number[]>();
  for (const { node, port, value } of emitted)
    if (typeof value === 'number')
      metrics.set(`${node}.${port}`, [...(metrics.get(`${node}.${port}`) ?? []), value]);
  return {
    result,
    metrics,
    errors,
    artifacts: new Map(artifacts.map((a) => [`${a.node}.${a.name}`, a.bytes])),
  };
}

describe('tables and images trained on the real runtime (WASM)', () => {
  it('the iris example trains to a good held-out accuracy and keeps its confusion matrix', async () => {
    const csv = new Uint8Array(readFileSync('src/examples/iris.csv'));
    const flow = flowDocumentSchema.parse(
      JSON.parse(readFileSync('src/examples/iris-table.flow.json', 'utf8')),
    );
    const file = await stored('iris.csv', csv);
    expect(flow.nodes.find((n) => n.id === 'data')?.params.file).toBe(file.digest);
    const { result, metrics, errors, artifacts } = await run(flow, [file], { epochs: 40, seed: 0 });
    expect(errors).toEqual({});
    const loss = metrics.get('train.loss')!;
    expect(loss.at(-1)!).toBeLessThan(loss[0]! / 3);
    expect(result.outputs.accuracy).toBeGreaterThan(0.9);
    expect(result.outputs.val_loss).toBeLessThan(0.4);
    const confusion = readConfusion(artifacts.get('eval.confusion-matrix')!)!;
    expect(confusion.classes).toEqual(['setosa', 'versicolor', 'virginica']);
    // Stratified: 15 of each species held out.
    expect(confusion.matrix.map((row) => row.reduce((a, b) => a + b, 0))).toEqual([15, 15, 15]);
  }, 60_000);

  it('the digits example (a zip of images) trains to a sensible held-out accuracy', async () => {
    const zip = new Uint8Array(readFileSync('src/examples/digits.zip'));
    const flow = flowDocumentSchema.parse(
      JSON.parse(readFileSync('src/examples/digits-images.flow.json', 'utf8')),
    );
    const file = { ...(await stored('digits.zip', zip)), mediaType: 'application/zip' };
    expect(flow.nodes.find((n) => n.id === 'data')?.params.file).toBe(file.digest);
    const { result, metrics, errors, artifacts } = await run(flow, [file], { epochs: 30, seed: 0 });
    expect(errors).toEqual({});
    const loss = metrics.get('train.loss')!;
    expect(loss.at(-1)!).toBeLessThan(loss[0]! / 3);
    // Ten digits, so chance is 0.1.
    expect(result.outputs.accuracy).toBeGreaterThan(0.8);
    const confusion = readConfusion(artifacts.get('eval.confusion-matrix')!)!;
    expect(confusion.classes).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
    // Stratified: 12 of each digit held out.
    expect(confusion.matrix.map((row) => row.reduce((a, b) => a + b, 0))).toEqual(
      Array(10).fill(12),
    );
  }, 60_000);

  it('a regression table trains on Huber loss to a high R²', async () => {
    const random = createRandom(4);
    const rows = Array.from({ length: 400 }, () => {
      const a = 10 * random();
      const b = random() * 4 - 2;
      const colour = random() < 0.5 ? 'red' : 'blue';
      const y = 3 * a - 5 * b + (colour === 'red' ? 4 : 0) + 0.3 * normal(random);
      return `${a.toFixed(4)},${b.toFixed(4)},${colour},${y.toFixed(4)}`;
    });
    const file = await stored(
      'lines.csv',
      new TextEncoder().encode(`a,b,colour,y\n${rows.join('\n')}\n`),
    );
    const flow: FlowDocument = {
      format: FLOW_FORMAT,
      name: 'lines',
      inputs: [],
      outputs: ['r2', 'mae', 'val_loss'],
      nodes: [
        {
          id: 'data',
          kind: 'data.table',
          params: { file: file.digest, label: 'y' },
          position: { x: 0, y: 0 },
        },
        { id: 'split', kind: 'data.split', params: {}, position: { x: 0, y: 0 } },
        {
          id: 'model',
          kind: 'model.mlp',
          params: { hidden: 16, layers: 1 },
          position: { x: 0, y: 0 },
        },
        {
          id: 'train',
          kind: 'train.regressor',
          params: { loss: 'huber', epochs: 60, batch_size: 32, optimizer: 'adam', lr: 0.02 },
          position: { x: 0, y: 0 },
        },
        { id: 'score', kind: 'eval.regression', params: {}, position: { x: 0, y: 0 } },
      ],
      edges: [
        { from: 'data.dataset', to: 'split.dataset' },
        { from: 'split.train', to: 'train.dataset' },
        { from: 'split.test', to: 'train.validation' },
        { from: 'model.model', to: 'train.model' },
        { from: 'train.model', to: 'score.model' },
        { from: 'split.test', to: 'score.dataset' },
      ],
    };
    const { result, metrics, errors } = await run(flow, [file]);
    expect(errors).toEqual({});
    const loss = metrics.get('train.loss')!;
    expect(loss.at(-1)!).toBeLessThan(loss[0]! / 5);
    expect(result.outputs.r2).toBeGreaterThan(0.95);
    expect(typeof result.outputs.mae).toBe('number');
  }, 60_000);
});
