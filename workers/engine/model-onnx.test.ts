import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { NodeFile } from '../../src/core/catalog/kind';
import { FLOW_FORMAT, type FlowDocument } from '../../src/core/flow/document';
import { GraphBuilder } from '../../src/core/onnx/graph';
import { buildMlpInference, type MlpSpec } from '../../src/core/onnx/mlp';
import { runOnWasm, storedFile } from './testing';

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

const stored = (name: string, bytes: Uint8Array) => storedFile(name, bytes, 'application/onnx');

/**
 * A model with the inputs of a voice-activity detector — rows, a state of
 * the same batch, an int64 sample rate — and outputs of four types:
 * output = Σ row + sr / 1000, stateN = state + 1, the state's shape (int64)
 * and whether each row's sum is positive (bool).
 */
function vadModel(): Uint8Array {
  const g = new GraphBuilder('vad');
  const input = g.input('input', 'float32', ['batch', 2]);
  const state = g.input('state', 'float32', [2, 'batch', 4]);
  const sr = g.input('sr', 'int64', []);
  const sum = g.op('ReduceSum', [input, g.constant([1], 'int64')], { keepdims: 1 });
  const rate = g.op('Div', [g.op('Cast', [sr], { to: 1 }), g.constant(1000)]);
  g.output(g.op('Add', [sum, rate]), 'output', 'float32', ['batch', 1]);
  g.output(g.op('Add', [state, g.constant(1)]), 'stateN', 'float32', [2, 'batch', 4]);
  g.output(g.op('Shape', [state]), 'stateShape', 'int64', [3]);
  g.output(g.op('Greater', [sum, g.constant(0)]), 'positive', 'bool', ['batch', 1]);
  return g.toModel();
}

/**
 * Outputs of every type a model may give, from x = 1: an int64 past 2^53
 * (2^53 + x), a safe int64 (16e6·x), a float16 (0.1·x), a bool (x > 0) and a uint8 (200·x).
 */
function typesModel(): Uint8Array {
  const g = new GraphBuilder('types');
  const x = g.input('x', 'float32', [1]);
  const long = (v: ReturnType<typeof g.input>) => g.op('Cast', [v], { to: 7 });
  g.output(g.op('Add', [long(x), g.constant(2 ** 53, 'int64')]), 'big', 'int64', [1]);
  g.output(long(g.op('Mul', [x, g.constant(16e6)])), 'count', 'int64', [1]);
  g.output(g.op('Cast', [g.op('Mul', [x, g.constant(0.1)])], { to: 10 }), 'half', 'float16', [1]);
  g.output(g.op('Greater', [x, g.constant(0)]), 'flag', 'bool', [1]);
  g.output(g.op('Cast', [g.op('Mul', [x, g.constant(200)])], { to: 2 }), 'byte', 'uint8', [1]);
  return g.toModel();
}

function flow(
  file: string,
  inputs = '',
  wired = true,
  more: Record<string, string | number> = {},
): FlowDocument {
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
      {
        id: 'infer',
        kind: 'model.onnx',
        params: { file, inputs, ...more },
        position: { x: 300, y: 0 },
      },
    ],
    edges: wired ? [{ from: 'data.dataset', to: 'infer.dataset' }] : [],
  };
}

function run(
  files: NodeFile[],
  file: string,
  inputs = '',
  wired = true,
  more: Record<string, string | number> = {},
) {
  return runFlow(files, flow(file, inputs, wired, more));
}

/** A float32 (or, given bigints, int64) `.npy` file (little-endian, C order) of `values` shaped `dims`. */
function npy(dims: readonly number[], values: readonly number[] | readonly bigint[]): Uint8Array {
  const long = typeof values[0] === 'bigint';
  const header = `{'descr': '${long ? '<i8' : '<f4'}', 'fortran_order': False, 'shape': (${dims.join(', ')},), }`;
  const text = header + ' '.repeat(64 - ((10 + header.length + 1) % 64)) + '\n';
  const size = long ? 8 : 4;
  const out = new Uint8Array(10 + text.length + size * values.length);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, text.length, 0]);
  out.set(new TextEncoder().encode(text), 10);
  const view = new DataView(out.buffer, 10 + text.length);
  values.forEach((v, i) =>
    typeof v === 'bigint' ? view.setBigInt64(8 * i, v, true) : view.setFloat32(4 * i, v, true),
  );
  return out;
}

/** ids (int64 [3]) → next = ids + 1 (int64): what an int64 input was fed, read back exactly. */
function nextIdModel(): Uint8Array {
  const g = new GraphBuilder('next-id');
  const ids = g.input('ids', 'int64', [3]);
  g.output(g.op('Add', [ids, g.constant(1, 'int64')]), 'next', 'int64', [3]);
  return g.toModel();
}

/** The model fed from a data.tensor node's array on its `tensor` port, with no dataset. */
function tensorFlow(model: string, array: string, inputs: string): FlowDocument {
  const base = flow(model, inputs, false);
  return {
    ...base,
    nodes: [
      ...base.nodes.filter((n) => n.id !== 'data'),
      { id: 'array', kind: 'data.tensor', params: { file: array }, position: { x: 0, y: 0 } },
    ],
    edges: [{ from: 'array.tensor', to: 'infer.tensor' }],
  };
}

async function runFlow(files: NodeFile[], document: FlowDocument) {
  const { result, errors, logs, artifacts } = await runOnWasm(document, files);
  return {
    result,
    logs: logs.map(({ node, message }) => `${node}: ${message}`),
    errors,
    artifacts: artifacts.map(
      ({ node, name, bytes, mediaType }) => `${node} ${name} ${bytes.byteLength} ${mediaType}`,
    ),
  };
}

describe('model.onnx (real onnxruntime, WASM)', () => {
  it('has the e2e fixtures e2e/flows/sign.onnx and vad.onnx as these builders make them', () => {
    expect(new Uint8Array(readFileSync('e2e/flows/sign.onnx'))).toEqual(signModel());
    expect(new Uint8Array(readFileSync('e2e/flows/vad.onnx'))).toEqual(vadModel());
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

  it('fails the node when the rows do not fit the model’s input, or its inputs are not mapped', async () => {
    const three = await stored('three.onnx', signModel(3));
    expect((await run([three], three.digest)).errors.infer).toBe(
      "the model's input 'x' takes float32 [batch×3]; dimension 1 is 3, the dataset's rows [200×2] has 2",
    );
    const spec: MlpSpec = { inputSize: 2, hidden: [], outputSize: 2, activation: 'relu' };
    const open = await stored('open.onnx', buildMlpInference(spec).model);
    expect((await run([open], open.digest)).errors.infer).toBe(
      'the model has 3 inputs (x float32 [batch×2], W0 float32 [2×2], b0 float32 [2]); ' +
        'map each to the dataset, a tensor or a constant in the inspector',
    );
  });

  it('feeds a multi-input model the rows, a filled state and an int64 rate; reads every output type', async () => {
    const file = await stored('vad.onnx', vadModel());
    const { result, logs, errors } = await run(
      [file],
      file.digest,
      JSON.stringify({ input: 'dataset', state: 0, sr: 16000 }),
    );
    expect(errors).toEqual({});
    expect(logs).toContain(
      "infer: feeds input ← the dataset's rows, state ← constant float32 [2×200×4], sr ← constant int64 []",
    );
    const lines = String(result.outputs.outputs).split('\n');
    expect(lines[0]).toMatch(/^output: float32 \[200×1\] = \[/);
    expect(lines.slice(1)).toEqual([
      'stateN: float32 [2×200×4] = [1, 1, 1, 1, …]',
      'stateShape: int64 [3] = [2, 200, 4]',
      expect.stringMatching(
        /^positive: bool \[200×1\] = \[(true|false), (true|false), (true|false), (true|false), …\]$/,
      ),
    ]);
    // The first output is not [rows × classes]: no accuracy is claimed.
    expect(result.outputs.accuracy).toBeUndefined();
  });

  it('runs a model fed constants alone, with no dataset wired, and names a value that does not fit', async () => {
    const file = await stored('vad.onnx', vadModel());
    const rows = [
      [1, 2],
      [3, 4],
    ];
    const { result, errors } = await run(
      [file],
      file.digest,
      JSON.stringify({ input: rows, state: 0.5, sr: 16000 }),
      false,
    );
    expect(errors).toEqual({});
    expect(result.outputs.outputs).toBe(
      [
        'output: float32 [2×1] = [19, 23]',
        'stateN: float32 [2×2×4] = [1.5, 1.5, 1.5, 1.5, …]',
        'stateShape: int64 [3] = [2, 2, 4]',
        'positive: bool [2×1] = [true, true]',
      ].join('\n'),
    );
    const bad = await run(
      [file],
      file.digest,
      JSON.stringify({ input: rows, state: 0, sr: 16000.5 }),
      false,
    );
    expect(bad.errors.infer).toBe(
      "the model's input 'sr' takes int64; the constant 16000.5 is not an int64 typed exactly (a whole number within ±2^53)",
    );
  });

  it('feeds any input the array on the tensor port, and names the dimension that does not fit', async () => {
    const model = await stored('vad.onnx', vadModel());
    const rows = await stored('rows.npy', npy([3, 2], [1, 2, 3, 4, -5, -6]));
    const fed = await runFlow(
      [model, rows],
      tensorFlow(
        model.digest,
        rows.digest,
        JSON.stringify({ input: 'tensor', state: 0, sr: 8000 }),
      ),
    );
    expect(fed.errors).toEqual({});
    expect(fed.logs).toContain(
      'infer: feeds input ← the tensor rows.npy float32 [3×2], state ← constant float32 [2×3×4], sr ← constant int64 []',
    );
    // The array's rows, its batch of 3 binding the state's.
    expect(String(fed.result.outputs.outputs).split('\n').slice(0, 3)).toEqual([
      'output: float32 [3×1] = [11, 15, -3]',
      'stateN: float32 [2×3×4] = [1, 1, 1, 1, …]',
      'stateShape: int64 [3] = [2, 3, 4]',
    ]);

    // The state fed from the array instead: the batch it binds (a port binds before a constant) is 3.
    const state = await stored('state.npy', npy([2, 3, 4], Array<number>(24).fill(2)));
    const wide = await runFlow(
      [model, state],
      tensorFlow(
        model.digest,
        state.digest,
        JSON.stringify({ input: [[1, 2]], state: 'tensor', sr: 8000 }),
      ),
    );
    expect(wide.errors.infer).toBe(
      "the model's input 'input' takes float32 [batch×2]; dimension 0 ('batch') is 3 as input 'state' has it, the constant [1×2] has 1",
    );
    // Wired but mapped to no input: said, not ignored.
    const unmapped = await runFlow(
      [model, rows],
      tensorFlow(model.digest, rows.digest, JSON.stringify({ input: [[1, 2]], state: 0, sr: 1 })),
    );
    expect(unmapped.errors.infer).toBe(
      `a tensor is wired to port 'tensor': map the model input it feeds to "tensor" in param 'inputs' (the model's inputs: input, state, sr)`,
    );
  });

  it('feeds an int64 .npy to an int64 input exactly past 2^53, and refuses a float array that is not whole', async () => {
    const model = await stored('next-id.onnx', nextIdModel());
    const big = 2n ** 53n + 1n; // a float32 or a double would round it to 2^53
    const ids = await stored('ids.npy', npy([3], [big, -big, 41n]));
    const fed = await runFlow(
      [model, ids],
      tensorFlow(model.digest, ids.digest, JSON.stringify({ ids: 'tensor' })),
    );
    expect(fed.errors).toEqual({});
    expect(fed.logs).toContain('array: ids.npy: <i8 (3) as int64');
    expect(fed.logs).toContain('infer: feeds ids ← the tensor ids.npy int64 [3]');
    expect(String(fed.result.outputs.outputs)).toBe(
      'next: int64 [3] = [9007199254740994, -9007199254740992, 42]',
    );
    const halves = await stored('halves.npy', npy([3], [1, 2.5, 3]));
    const refused = await runFlow(
      [model, halves],
      tensorFlow(model.digest, halves.digest, JSON.stringify({ ids: 'tensor' })),
    );
    expect(refused.errors.infer).toBe(
      "the model's input 'ids' takes int64 [3]; the tensor halves.npy (float32 [3]) has element 1 = 2.5, not an int64 (a whole number from −2^63 to 2^63 − 1)",
    );
  });

  it('feeds two inputs from two arrays on two tensor ports, one of them int64', async () => {
    const model = await stored('vad.onnx', vadModel());
    const rows = await stored('rows.npy', npy([3, 2], [1, 2, 3, 4, -5, -6]));
    const rate = await stored('rate.npy', npy([], [8000n]));
    const base = tensorFlow(
      model.digest,
      rows.digest,
      JSON.stringify({ input: 'tensor', state: 0, sr: 'tensor2' }),
    );
    const document: FlowDocument = {
      ...base,
      nodes: [
        ...base.nodes,
        {
          id: 'rate',
          kind: 'data.tensor',
          params: { file: rate.digest },
          position: { x: 0, y: 0 },
        },
      ],
      edges: [...base.edges, { from: 'rate.tensor', to: 'infer.tensor2' }],
    };
    const fed = await runFlow([model, rows, rate], document);
    expect(fed.errors).toEqual({});
    expect(fed.logs).toContain(
      'infer: feeds input ← the tensor rows.npy float32 [3×2], state ← constant float32 [2×3×4], sr ← the tensor rate.npy (port tensor2) int64 []',
    );
    // Σ row + sr / 1000: the rate came from the int64 array.
    expect(String(fed.result.outputs.outputs).split('\n')[0]).toBe(
      'output: float32 [3×1] = [11, 15, -3]',
    );
    // A wired port no input is mapped to is refused, naming the port.
    const idle = await runFlow([model, rows, rate], {
      ...document,
      nodes: document.nodes.map((n) =>
        n.id === 'infer'
          ? { ...n, params: { ...n.params, inputs: '{"input":"tensor","state":0,"sr":1}' } }
          : n,
      ),
    });
    expect(idle.errors.infer).toBe(
      `a tensor is wired to port 'tensor2': map the model input it feeds to "tensor2" in param 'inputs' (the model's inputs: input, state, sr)`,
    );
  });

  it('runs a flow drawn when the node had one tensor port (e2e/flows/onnx-tensor.flow.json) unchanged', async () => {
    const model = await stored('vad.onnx', vadModel());
    const rows = await stored('rows.npy', npy([3, 2], [1, 2, 3, 4, -5, -6]));
    const old = JSON.parse(
      readFileSync(new URL('../../e2e/flows/onnx-tensor.flow.json', import.meta.url), 'utf8'),
    ) as FlowDocument;
    const files: Record<string, string> = { array: rows.digest, infer: model.digest };
    const fed = await runFlow([model, rows], {
      ...old,
      nodes: old.nodes.map((n) => ({ ...n, params: { ...n.params, file: files[n.id]! } })),
    });
    expect(fed.errors).toEqual({});
    expect(String(fed.result.outputs.outputs).split('\n').slice(0, 3)).toEqual([
      'output: float32 [3×1] = [19, 23, 5]',
      'stateN: float32 [2×3×4] = [1, 1, 1, 1, …]',
      'stateShape: int64 [3] = [2, 3, 4]',
    ]);
  });

  it('describes every output in its own type: int64 exactly (digits beyond ±2^53), float16, bool, uint8', async () => {
    const file = await stored('types.onnx', typesModel());
    const { result, errors } = await run([file], file.digest, JSON.stringify({ x: [1] }), false);
    expect(errors).toEqual({});
    expect(String(result.outputs.outputs).split('\n')).toEqual([
      'big: int64 [1] = [9007199254740993]',
      'count: int64 [1] = [16000000]',
      'half: float16 [1] = [0.09998]',
      'flag: bool [1] = [true]',
      'byte: uint8 [1] = [200]',
    ]);
  });

  it('refuses to chart an int64 beyond ±2^53 as a number, naming the output and the value', async () => {
    const file = await stored('types.onnx', typesModel());
    const { errors } = await run([file], file.digest, JSON.stringify({ x: [1, 2] }), false, {
      sequence: 'x',
    });
    expect(errors.infer).toBe(
      "frames (unit 1 of 2) on wasm: the model's output 'big' holds 9007199254740993 (int64), beyond ±2^53: no number holds it exactly",
    );
  });

  it('asks for a file when none was picked', async () => {
    expect((await run([], '')).errors.infer).toBe(
      "no model file: pick a .onnx file for param 'file' in the inspector",
    );
  });
});
