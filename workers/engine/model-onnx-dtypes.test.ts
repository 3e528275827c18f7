/**
 * `model.onnx` with inputs of float64 and int16, on a real onnxruntime
 * session (onnxruntime-web's WASM backend under Node, as the engine runs
 * it): constants and a wired int32 array fed in the input's own type, and
 * outputs of those types read back in theirs.
 */
import { describe, expect, it } from 'vitest';
import type { NodeFile } from '../../src/core/catalog/kind';
import { FLOW_FORMAT, type FlowDocument } from '../../src/core/flow/document';
import { GraphBuilder } from '../../src/core/onnx/graph';
import { runOnWasm, storedFile } from './testing';

/** `TensorProto.DataType` codes the model casts to. */
const FLOAT = 1;
const INT16 = 5;
const DOUBLE = 11;

/**
 * x (float64 [2]) and n (int16 [2]): y = float32(x) + float32(n); lost = x −
 * float64(float32(x)), what a float32 feed would have lost of x (0 had x
 * come in as float32); m = int16(y), truncated.
 */
function mixedModel(): Uint8Array {
  const g = new GraphBuilder('mixed');
  const x = g.input('x', 'float64', [2]);
  const n = g.input('n', 'int16', [2]);
  const x32 = g.op('Cast', [x], { to: FLOAT });
  const y = g.op('Add', [x32, g.op('Cast', [n], { to: FLOAT })]);
  g.output(y, 'y', 'float32', [2]);
  g.output(g.op('Sub', [x, g.op('Cast', [x32], { to: DOUBLE })]), 'lost', 'float64', [2]);
  g.output(g.op('Cast', [y], { to: INT16 }), 'm', 'int16', [2]);
  return g.toModel();
}

/** An int32 `.npy` file (little-endian, C order) of `values`, one dimension. */
function int32Npy(values: readonly number[]): Uint8Array {
  const header = `{'descr': '<i4', 'fortran_order': False, 'shape': (${values.length},), }`;
  const text = header + ' '.repeat(64 - ((10 + header.length + 1) % 64)) + '\n';
  const out = new Uint8Array(10 + text.length + 4 * values.length);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, text.length, 0]);
  out.set(new TextEncoder().encode(text), 10);
  const view = new DataView(out.buffer, 10 + text.length);
  values.forEach((v, i) => view.setInt32(4 * i, v, true));
  return out;
}

/** The model fed by `inputs`; with `array`, a data.tensor node's array on its `tensor` port. */
function flow(model: string, inputs: object, array?: string): FlowDocument {
  return {
    format: FLOW_FORMAT,
    name: 'onnx-dtypes',
    inputs: [],
    outputs: ['outputs'],
    nodes: [
      ...(array === undefined
        ? []
        : [
            { id: 'array', kind: 'data.tensor', params: { file: array }, position: { x: 0, y: 0 } },
          ]),
      {
        id: 'infer',
        kind: 'model.onnx',
        params: { file: model, inputs: JSON.stringify(inputs) },
        position: { x: 300, y: 0 },
      },
    ],
    edges: array === undefined ? [] : [{ from: 'array.tensor', to: 'infer.tensor' }],
  };
}

async function run(files: NodeFile[], document: FlowDocument) {
  const { result, errors, logs } = await runOnWasm(document, files);
  return {
    outputs: result.outputs.outputs,
    errors,
    logs: logs.map(({ node, message }) => `${node}: ${message}`),
  };
}

describe('model.onnx with float64 and int16 inputs (real onnxruntime, WASM)', () => {
  it('feeds typed constants in their own types and reads the outputs back in theirs', async () => {
    const model = await storedFile('mixed.onnx', mixedModel(), 'application/onnx');
    const fed = await run([model], flow(model.digest, { x: [0.1, 2.5], n: [-300, 7] }));
    expect(fed.errors).toEqual({});
    expect(fed.logs).toContain('infer: feeds x ← constant float64 [2], n ← constant int16 [2]');
    // 0.1 came in as a double: float32 would lose 0.1 − fround(0.1) ≈ −1.49e-9 of it (as float32, 0).
    expect(String(fed.outputs).split('\n')).toEqual([
      'y: float32 [2] = [-299.9, 9.5]',
      'lost: float64 [2] = [-1.49e-9, 0]',
      'm: int16 [2] = [-299, 9]',
    ]);

    const wide = await run([model], flow(model.digest, { x: 0, n: [40000, 0] }));
    expect(wide.errors.infer).toBe(
      "the model's input 'n' takes int16; the constant's element 0 (40000) is not an int16 (a whole number from −32768 to 32767)",
    );
  });

  it('feeds an int32 array to the int16 input where every value fits, and names the first that does not', async () => {
    const model = await storedFile('mixed.onnx', mixedModel(), 'application/onnx');
    const counts = await storedFile('n.npy', int32Npy([-300, 7]), 'application/octet-stream');
    const fed = await run(
      [model, counts],
      flow(model.digest, { x: [1, 2], n: 'tensor' }, counts.digest),
    );
    expect(fed.errors).toEqual({});
    expect(fed.logs).toContain(
      'infer: feeds x ← constant float64 [2], n ← the tensor n.npy int32 as int16 [2]',
    );
    expect(String(fed.outputs).split('\n')[0]).toBe('y: float32 [2] = [-299, 9]');

    const big = await storedFile('n.npy', int32Npy([5, 70000]), 'application/octet-stream');
    const refused = await run(
      [model, big],
      flow(model.digest, { x: [1, 2], n: 'tensor' }, big.digest),
    );
    expect(refused.errors.infer).toBe(
      "the model's input 'n' takes int16 [2]; the tensor n.npy (int32 [2]) has element 1 = 70000, not an int16 (a whole number from −32768 to 32767)",
    );
  });
});
