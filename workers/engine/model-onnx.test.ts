import { readFileSync } from 'node:fs';
import * as ort from 'onnxruntime-web';
import { describe, expect, it } from 'vitest';
import type { NodeFile } from '../../src/core/catalog/kind';
import { executeFlow } from '../../src/core/engine/executor';
import { inProcessProducers } from '../../src/core/live/producer-host';
import { FLOW_FORMAT, type FlowDocument } from '../../src/core/flow/document';
import { builtinCatalog } from '../../src/core/nodes';
import { buildMlpInference, type MlpSpec } from '../../src/core/onnx/mlp';
import { sha256Hex } from '../../src/core/run/digest';
import { engineInfo, OrtRuntime } from './ort-runtime';

/** A linear model that tells the two blobs apart by the sign of x: logits [x, -x]. */
function signModel(inputSize = 2): Uint8Array {
  const spec: MlpSpec = { inputSize, hidden: [], outputSize: 2, activation: 'relu' };
  const W0 = new Float32Array(inputSize * 2);
  W0.set([1, -1]);
  return buildMlpInference(spec, {
    layout: [
      { name: 'W0', dims: [inputSize, 2] },
      { name: 'b0', dims: [2] },
    ],
    values: { W0, b0: new Float32Array(2) },
  }).model;
}

async function stored(name: string, bytes: Uint8Array): Promise<NodeFile> {
  return { name, bytes, mediaType: 'application/onnx', digest: `sha256:${await sha256Hex(bytes)}` };
}

function flow(file: string): FlowDocument {
  return {
    format: FLOW_FORMAT,
    name: 'onnx-blobs',
    inputs: [],
    outputs: ['outputs', 'accuracy'],
    nodes: [
      {
        id: 'data',
        kind: 'data.synthetic',
        params: { shape: 'blobs', n: 200, classes: 2, noise: 0.05 },
        position: { x: 0, y: 0 },
      },
      { id: 'infer', kind: 'model.onnx', params: { file }, position: { x: 300, y: 0 } },
    ],
    edges: [{ from: 'data.dataset', to: 'infer.dataset' }],
  };
}

async function run(files: NodeFile[], file: string) {
  const logs: string[] = [];
  const errors: Record<string, string> = {};
  const artifacts: string[] = [];
  const result = await executeFlow({
    flow: flow(file),
    catalog: builtinCatalog,
    inputs: {},
    runtime: new OrtRuntime(engineInfo(null), () => Promise.resolve(ort), 'wasm'),
    producers: inProcessProducers,
    readFile: (digest) => {
      const found = files.find((f) => f.digest === digest);
      return found ? Promise.resolve(found) : Promise.reject(new Error(`${digest} not stored`));
    },
    signal: new AbortController().signal,
    now: () => Date.now(),
    events: {
      nodeQueued: () => undefined,
      nodeStarted: () => undefined,
      nodeFinished: (node, outcome) => {
        if (outcome.error) errors[node] = outcome.error;
      },
      emitted: () => undefined,
      log: (node, message) => logs.push(`${node}: ${message}`),
      progress: () => undefined,
      artifact: (node, name, bytes, mediaType) =>
        artifacts.push(`${node} ${name} ${bytes.byteLength} ${mediaType}`),
      interval: () => undefined,
    },
  });
  return { result, logs, errors, artifacts };
}

describe('model.onnx (real onnxruntime, WASM)', () => {
  it('has the e2e fixture e2e/flows/sign.onnx as this builder makes it', () => {
    expect(new Uint8Array(readFileSync('e2e/flows/sign.onnx'))).toEqual(signModel());
  });

  it('runs an imported model on the rows, shows its outputs and the accuracy, keeps the file', async () => {
    const file = await stored('sign.onnx', signModel());
    const { result, logs, errors, artifacts } = await run([file], file.digest);
    expect(errors).toEqual({});
    expect(result.status).toBe('ok');
    expect(result.outputs.accuracy).toBe(1);
    expect(result.outputs.outputs).toMatch(/^logits: float32 \[200×2\] = \[/m);
    expect(result.outputs.outputs).toMatch(/^probabilities: float32 \[200×2\] = \[/m);
    expect(logs).toContain(
      'infer: model sign.onnx (' +
        `${file.bytes.byteLength} B, ${file.digest.slice(0, 19)}…): inputs x float32 [batch×2]; ` +
        'outputs logits float32 [batch×2], probabilities float32 [batch×2]',
    );
    expect(logs).toContain('infer: ran on wasm');
    expect(artifacts).toEqual([`infer sign.onnx ${file.bytes.byteLength} application/onnx`]);
  });

  it('fails the node with a clear error for a file that is not ONNX', async () => {
    const file = await stored('notes.onnx', new TextEncoder().encode('these are my notes\n'));
    const { errors } = await run([file], file.digest);
    expect(errors.infer).toMatch(/^model file 'notes.onnx': not an ONNX model: /);
  });

  it('fails the node when the rows do not fit the model’s input, or it has several', async () => {
    const three = await stored('three.onnx', signModel(3));
    expect((await run([three], three.digest)).errors.infer).toBe(
      "the model's input 'x' takes float32 [batch×3]; the dataset gives float32 [200×2]",
    );
    const spec: MlpSpec = { inputSize: 2, hidden: [], outputSize: 2, activation: 'relu' };
    const open = await stored('open.onnx', buildMlpInference(spec).model);
    expect((await run([open], open.digest)).errors.infer).toBe(
      "this node feeds one input (the dataset's rows); the model has 3: " +
        'x float32 [batch×2], W0 float32 [2×2], b0 float32 [2]',
    );
  });

  it('asks for a file when none was picked', async () => {
    expect((await run([], '')).errors.infer).toBe(
      "no model file: pick a .onnx file for param 'file' in the inspector",
    );
  });
});
