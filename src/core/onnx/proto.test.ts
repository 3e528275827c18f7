import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { float, GraphBuilder } from './graph.ts';
import { IR_VERSION, OPSET_VERSION } from './proto.ts';

// The messages we write, transcribed from onnx/onnx: onnx/onnx.proto, so
// these bytes are checked against the official field numbers independently
// of proto.ts (onnxruntime ignores unknown fields, so loading is not enough).
const ONNX_SUBSET = `
syntax = "proto2";
package onnx;
message AttributeProto {
  optional string name = 1; optional int32 type = 20; optional float f = 2; optional int64 i = 3;
  optional bytes s = 4; optional TensorProto t = 5; repeated float floats = 7; repeated int64 ints = 8;
}
message ValueInfoProto { optional string name = 1; optional TypeProto type = 2; }
message NodeProto {
  repeated string input = 1; repeated string output = 2; optional string name = 3;
  optional string op_type = 4; optional string domain = 7; repeated AttributeProto attribute = 5;
}
message ModelProto {
  optional int64 ir_version = 1; repeated OperatorSetIdProto opset_import = 8;
  optional string producer_name = 2; optional GraphProto graph = 7;
}
message GraphProto {
  repeated NodeProto node = 1; optional string name = 2; repeated TensorProto initializer = 5;
  repeated ValueInfoProto input = 11; repeated ValueInfoProto output = 12;
}
message TensorProto {
  repeated int64 dims = 1; optional int32 data_type = 2; optional string name = 8; optional bytes raw_data = 9;
}
message TensorShapeProto {
  message Dimension { oneof value { int64 dim_value = 1; string dim_param = 2; } }
  repeated Dimension dim = 1;
}
message TypeProto {
  message Tensor { optional int32 elem_type = 1; optional TensorShapeProto shape = 2; }
  oneof value { Tensor tensor_type = 1; }
}
message OperatorSetIdProto { optional string domain = 1; optional int64 version = 2; }
`;

interface Decoded {
  irVersion: number;
  producerName: string;
  opsetImport: { domain: string; version: number }[];
  graph: {
    name: string;
    node: {
      opType: string;
      input: string[];
      output: string[];
      attribute: Record<string, unknown>[];
    }[];
    initializer: { name: string; dims: number[]; dataType: number; rawData: Uint8Array }[];
    input: {
      name: string;
      type: { tensorType: { elemType: number; shape?: { dim: Record<string, unknown>[] } } };
    }[];
    output: { name: string }[];
  };
}

function decode(bytes: Uint8Array): Decoded {
  const ModelProto = protobuf.parse(ONNX_SUBSET).root.lookupType('onnx.ModelProto');
  return ModelProto.toObject(ModelProto.decode(bytes), { longs: Number }) as Decoded;
}

describe('encodeModel', () => {
  it('writes every field under its onnx.proto field number', () => {
    const g = new GraphBuilder('checked');
    const x = g.input('x', 'float32', ['batch', 3]);
    const lr = g.input('lr', 'float32');
    const w = g.initializer('w', Float32Array.from([1.5, -2]), [2, 1]);
    const axes = g.constant([-1], 'int64');
    const y = g.op('Gemm', [x, w], { transB: 1, alpha: float(0.25) });
    const z = g.op('ReduceSum', [g.op('Mul', [y, lr]), axes], { keepdims: 0 });
    g.op('Transpose', [y], { perm: [1, 0] });
    g.op('Cast', [z], { to: 1, mode: 'unused' });
    g.output(z, 'z', 'float32', ['batch']);
    const m = decode(g.toModel('test-producer'));

    expect(m.irVersion).toBe(IR_VERSION);
    expect(m.producerName).toBe('test-producer');
    expect(m.opsetImport).toEqual([{ domain: '', version: OPSET_VERSION }]);
    expect(m.graph.name).toBe('checked');
    expect(m.graph.input.map((i) => i.name)).toEqual(['x', 'lr']);
    expect(m.graph.input[0]?.type.tensorType).toEqual({
      elemType: 1,
      shape: { dim: [{ dimParam: 'batch' }, { dimValue: 3 }] },
    });
    expect(m.graph.input[1]?.type.tensorType).toEqual({ elemType: 1 }); // no shape: any rank

    const [wInit, axesInit] = m.graph.initializer;
    expect(wInit).toMatchObject({ name: 'w', dims: [2, 1], dataType: 1 });
    expect(Array.from(new Float32Array(Uint8Array.from(wInit?.rawData ?? []).buffer))).toEqual([
      1.5, -2,
    ]);
    expect(axesInit).toMatchObject({ dims: [1], dataType: 7 });
    expect(Array.from(new BigInt64Array(Uint8Array.from(axesInit?.rawData ?? []).buffer))).toEqual([
      -1n,
    ]);

    const [gemm, , reduce, transpose, cast, identity] = m.graph.node;
    expect(gemm).toMatchObject({ opType: 'Gemm', input: ['x', 'w'] });
    expect(gemm?.attribute).toEqual([
      { name: 'transB', type: 2, i: 1 },
      { name: 'alpha', type: 1, f: 0.25 },
    ]);
    expect(reduce?.attribute).toEqual([{ name: 'keepdims', type: 2, i: 0 }]);
    expect(transpose?.attribute).toEqual([{ name: 'perm', type: 7, ints: [1, 0] }]);
    expect(cast?.attribute[1]).toMatchObject({ name: 'mode', type: 3 });
    expect(new TextDecoder().decode(cast?.attribute[1]?.s as Uint8Array)).toBe('unused');
    expect(identity).toMatchObject({ opType: 'Identity', output: ['z'] });
    expect(m.graph.output.map((o) => o.name)).toEqual(['z']);
  });
});
