import { describe, expect, it } from 'vitest';
import { buildMlpInference, initMlpWeights, type MlpSpec } from './mlp.ts';
import { createRandom } from '../random.ts';
import { describeValueInfo, readOnnxSignature } from './signature.ts';

const spec: MlpSpec = { inputSize: 3, hidden: [4], outputSize: 2, activation: 'tanh' };

describe('readOnnxSignature', () => {
  it('reads the inputs and outputs of a model with weights as inputs', () => {
    const sig = readOnnxSignature(buildMlpInference(spec).model);
    expect(sig.irVersion).toBe(8);
    expect(sig.opsets).toContainEqual({ domain: '', version: 17 });
    expect(sig.inputs.map(describeValueInfo)).toEqual([
      'float32 [batch×3]',
      'float32 [3×4]',
      'float32 [4]',
      'float32 [4×2]',
      'float32 [2]',
    ]);
    expect(sig.inputs.map((i) => i.name)).toEqual(['x', 'W0', 'b0', 'W1', 'b1']);
    expect(sig.outputs.map((o) => `${o.name}: ${describeValueInfo(o)}`)).toEqual([
      'logits: float32 [batch×2]',
      'probabilities: float32 [batch×2]',
    ]);
    expect(sig.nodeCount).toBeGreaterThan(3);
    // Every node counted under its operator; the MLP's two layers are two Gemms.
    expect(sig.operators.reduce((n, o) => n + o.count, 0)).toBe(sig.nodeCount);
    expect(sig.operators).toContainEqual({ op: 'Gemm', count: 2 });
    expect(sig.operators).toContainEqual({ op: 'Softmax', count: 1 });
  });

  it('leaves baked-in weights out of the inputs', () => {
    const model = buildMlpInference(spec, initMlpWeights(spec, createRandom(1))).model;
    expect(readOnnxSignature(model).inputs.map((i) => i.name)).toEqual(['x']);
  });

  it('refuses bytes that are not an ONNX model, saying so', () => {
    const text = new TextEncoder().encode('this is a text file, not a model\n');
    expect(() => readOnnxSignature(text)).toThrow(
      expect.objectContaining({ code: 'onnx-invalid' }),
    );
    expect(() => readOnnxSignature(text)).toThrow(/^not an ONNX model/);
    expect(() => readOnnxSignature(new Uint8Array([8, 7]))).toThrow('not an ONNX model: no graph');
    expect(() => readOnnxSignature(new Uint8Array())).toThrow('not an ONNX model: no IR version');
    const model = buildMlpInference(spec).model;
    expect(() => readOnnxSignature(model.subarray(0, model.length - 9))).toThrow(
      /^not an ONNX model/,
    );
  });
});
