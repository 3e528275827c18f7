/**
 * ONNX model encoding: a small typed IR in, `ModelProto` bytes out.
 *
 * Idea: Flowbench builds its models in code, so it needs to *write* ONNX but
 * never to read it. We therefore encode only the handful of messages a model
 * needs (model, graph, node, attribute, tensor, value info) straight onto a
 * protobufjs `Writer`, with field numbers from the official `onnx.proto`.
 * Trade-off: no generated classes and no decoder (smaller bundle, no codegen
 * step), at the cost of owning these field numbers here; the unit tests
 * decode our bytes with a schema transcribed from `onnx.proto` and load them
 * in onnxruntime to keep us honest.
 */
import protobuf from 'protobufjs/minimal';

/**
 * Element types the builders use, named as onnxruntime-web names them
 * (float16, float64 and the smaller integers for graphs that give or take
 * them, e.g. imported-model fixtures).
 */
export type ElemType =
  | 'float32'
  | 'int64'
  | 'int32'
  | 'bool'
  | 'float16'
  | 'uint8'
  | 'float64'
  | 'int8'
  | 'int16'
  | 'uint16'
  | 'uint32'
  | 'uint64';

/** A dimension: a fixed size, or a symbolic name (e.g. `'batch'`) for a dynamic one. */
export type Dim = number | string;

/** `TensorProto.DataType` codes. */
export const DATA_TYPE: Readonly<Record<ElemType, number>> = {
  float32: 1,
  int32: 6,
  int64: 7,
  bool: 9,
  float16: 10,
  uint8: 2,
  int8: 3,
  uint16: 4,
  int16: 5,
  float64: 11,
  uint32: 12,
  uint64: 13,
};

/** A tensor stored in the model (an initializer or a tensor attribute). */
export interface TensorIR {
  name: string;
  elemType: ElemType;
  dims: readonly number[];
  /** Little-endian, fixed-width element bytes (`raw_data`). */
  rawData: Uint8Array;
}

/** A graph input or output. `shape` undefined means "any rank". */
export interface ValueInfoIR {
  name: string;
  elemType: ElemType;
  shape?: readonly Dim[] | undefined;
}

/** One attribute value, tagged with its `AttributeProto.AttributeType`. */
export type AttributeValueIR =
  | { type: 'float'; value: number }
  | { type: 'int'; value: number }
  | { type: 'string'; value: string }
  | { type: 'tensor'; value: TensorIR }
  | { type: 'floats'; value: readonly number[] }
  | { type: 'ints'; value: readonly number[] };

/** A named node attribute. */
export interface AttributeIR {
  name: string;
  value: AttributeValueIR;
}

/** One operator application. An empty input name marks an omitted optional input. */
export interface NodeIR {
  opType: string;
  inputs: readonly string[];
  outputs: readonly string[];
  name?: string | undefined;
  domain?: string | undefined;
  attributes: readonly AttributeIR[];
}

/** A graph; `nodes` must be in topological order. */
export interface GraphIR {
  name: string;
  nodes: readonly NodeIR[];
  initializers: readonly TensorIR[];
  inputs: readonly ValueInfoIR[];
  outputs: readonly ValueInfoIR[];
}

/** A whole model: IR version, operator sets, producer and graph. */
export interface ModelIR {
  irVersion: number;
  opsetImports: readonly { domain: string; version: number }[];
  producerName: string;
  /** The producer's version (ONNX `producer_version`). */
  producerVersion?: string;
  graph: GraphIR;
  /** Free-form key/value pairs a reader of the file sees (ONNX `metadata_props`). */
  metadataProps?: Readonly<Record<string, string>>;
}

/** IR version 8 (ONNX 1.10+): initializers need not be listed as inputs. */
export const IR_VERSION = 8;
/** Default-domain opset the builders target (ReduceSum takes axes as an input; ReduceMax/ReduceMean take an attribute). */
export const OPSET_VERSION = 17;

const ATTRIBUTE_TYPE = { float: 1, int: 2, string: 3, tensor: 4, floats: 6, ints: 7 } as const;

// Protobuf wire types.
const VARINT = 0;
const FIXED32 = 5;
const LENGTH_DELIMITED = 2;

type Writer = protobuf.Writer;

function tag(w: Writer, field: number, wireType: number): Writer {
  return w.uint32((field << 3) | wireType);
}

function writeString(w: Writer, field: number, value: string): void {
  tag(w, field, LENGTH_DELIMITED).string(value);
}

function writeInt64(w: Writer, field: number, value: number): void {
  if (!Number.isSafeInteger(value)) throw new RangeError(`not a safe integer: ${value}`);
  tag(w, field, VARINT).int64(value);
}

/** Writes a sub-message: `fork` … `ldelim` prefixes it with its length. */
function writeMessage(w: Writer, field: number, body: (w: Writer) => void): void {
  tag(w, field, LENGTH_DELIMITED).fork();
  body(w);
  w.ldelim();
}

function writeTensor(w: Writer, t: TensorIR): void {
  // Repeated scalars are written unpacked (the proto2 default); decoders accept both.
  for (const d of t.dims) writeInt64(w, 1, d);
  tag(w, 2, VARINT).int32(DATA_TYPE[t.elemType]);
  writeString(w, 8, t.name);
  tag(w, 9, LENGTH_DELIMITED).bytes(t.rawData);
}

function writeValueInfo(w: Writer, v: ValueInfoIR): void {
  writeString(w, 1, v.name);
  writeMessage(w, 2, (type) =>
    writeMessage(type, 1, (tensorType) => {
      tag(tensorType, 1, VARINT).int32(DATA_TYPE[v.elemType]);
      if (v.shape === undefined) return;
      const shape = v.shape;
      writeMessage(tensorType, 2, (shapeProto) => {
        for (const d of shape) {
          writeMessage(shapeProto, 1, (dim) => {
            if (typeof d === 'number') writeInt64(dim, 1, d);
            else writeString(dim, 2, d);
          });
        }
      });
    }),
  );
}

function writeAttribute(w: Writer, a: AttributeIR): void {
  writeString(w, 1, a.name);
  const v = a.value;
  switch (v.type) {
    case 'float':
      tag(w, 2, FIXED32).float(v.value);
      break;
    case 'int':
      writeInt64(w, 3, v.value);
      break;
    case 'string':
      tag(w, 4, LENGTH_DELIMITED).bytes(new TextEncoder().encode(v.value));
      break;
    case 'tensor':
      writeMessage(w, 5, (t) => writeTensor(t, v.value));
      break;
    case 'floats':
      for (const f of v.value) tag(w, 7, FIXED32).float(f);
      break;
    case 'ints':
      for (const i of v.value) writeInt64(w, 8, i);
      break;
  }
  tag(w, 20, VARINT).int32(ATTRIBUTE_TYPE[v.type]);
}

function writeNode(w: Writer, n: NodeIR): void {
  for (const i of n.inputs) writeString(w, 1, i);
  for (const o of n.outputs) writeString(w, 2, o);
  if (n.name !== undefined) writeString(w, 3, n.name);
  writeString(w, 4, n.opType);
  for (const a of n.attributes) writeMessage(w, 5, (attr) => writeAttribute(attr, a));
  if (n.domain !== undefined && n.domain !== '') writeString(w, 7, n.domain);
}

function writeGraph(w: Writer, g: GraphIR): void {
  for (const n of g.nodes) writeMessage(w, 1, (node) => writeNode(node, n));
  writeString(w, 2, g.name);
  for (const t of g.initializers) writeMessage(w, 5, (tensor) => writeTensor(tensor, t));
  for (const v of g.inputs) writeMessage(w, 11, (info) => writeValueInfo(info, v));
  for (const v of g.outputs) writeMessage(w, 12, (info) => writeValueInfo(info, v));
}

/**
 * Encodes a model as ONNX `ModelProto` bytes, ready for
 * `InferenceSession.create(bytes)` or for saving as a `.onnx` file.
 */
export function encodeModel(model: ModelIR): Uint8Array {
  // A plain Writer (not Writer.create(), which picks Node's Buffer) so the
  // result is an ordinary, unshared Uint8Array in every environment.
  const w = new protobuf.Writer();
  writeInt64(w, 1, model.irVersion);
  writeString(w, 2, model.producerName);
  if (model.producerVersion !== undefined) writeString(w, 3, model.producerVersion);
  writeMessage(w, 7, (graph) => writeGraph(graph, model.graph));
  for (const op of model.opsetImports) {
    writeMessage(w, 8, (opset) => {
      writeString(opset, 1, op.domain);
      writeInt64(opset, 2, op.version);
    });
  }
  writeMetadataProps(w, model.metadataProps ?? {});
  return w.finish();
}

function writeMetadataProps(w: Writer, props: Readonly<Record<string, string>>): void {
  for (const [key, value] of Object.entries(props)) {
    writeMessage(w, 14, (entry) => {
      writeString(entry, 1, key);
      writeString(entry, 2, value);
    });
  }
}

/**
 * `model` (encoded `ModelProto` bytes) with more `metadata_props` entries.
 * Protobuf merges a repeated field written twice, so the entries are simply
 * appended: the model's own bytes are kept as they are (their digest still
 * names them), and a reader sees the old entries and the new ones.
 */
export function withMetadataProps(
  model: Uint8Array,
  props: Readonly<Record<string, string>>,
): Uint8Array {
  const w = new protobuf.Writer();
  writeMetadataProps(w, props);
  const extra = w.finish();
  const out = new Uint8Array(model.length + extra.length);
  out.set(model);
  out.set(extra, model.length);
  return out;
}

/** Bytes per element of each type in `raw_data`. */
export const ELEM_BYTES: Readonly<Record<ElemType, number>> = {
  float32: 4,
  int32: 4,
  int64: 8,
  bool: 1,
  float16: 2,
  uint8: 1,
  float64: 8,
  int8: 1,
  int16: 2,
  uint16: 2,
  uint32: 4,
  uint64: 8,
};

/**
 * Copies typed-array elements to little-endian `raw_data` bytes
 * (explicitly little-endian, so the model is the same on any host).
 */
export function toRawData(
  data: Float32Array | Int32Array | BigInt64Array | Uint8Array,
): Uint8Array {
  const out = new Uint8Array(data.byteLength);
  const view = new DataView(out.buffer);
  if (data instanceof Float32Array) data.forEach((x, i) => view.setFloat32(i * 4, x, true));
  else if (data instanceof Int32Array) data.forEach((x, i) => view.setInt32(i * 4, x, true));
  else if (data instanceof BigInt64Array) data.forEach((x, i) => view.setBigInt64(i * 8, x, true));
  else out.set(data);
  return out;
}
