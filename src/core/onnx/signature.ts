/**
 * What an ONNX file says about itself: its graph's inputs and outputs, with
 * element types and shapes, read straight from the `ModelProto` bytes.
 *
 * Idea: a person's imported model must be checked before it is run — is it
 * ONNX at all, and does what is wired to it fit its inputs — and its
 * signature shown in the inspector. We decode only the fields that carry the
 * signature (model → graph → inputs, outputs, initializer names) and skip
 * everything else, so a model of any size is read in one pass without
 * copying its weights. Trade-off: a file that merely *looks* like protobuf
 * but is not a model is told apart only by having no graph or IR version;
 * onnxruntime's own load is the final judge.
 */
import protobuf from 'protobufjs/minimal';
import { FlowbenchError } from '../errors';

/** A graph input or output: its name, element type and shape. */
export interface OnnxValueInfo {
  readonly name: string;
  /** onnxruntime-web's name for the type (`float32`, `int64` …), or `type <code>`. */
  readonly type: string;
  /** Each dim a size, a symbolic name, or null when unnamed; null for an unknown rank. */
  readonly shape: readonly (number | string | null)[] | null;
}

/** The signature of an ONNX model. */
export interface OnnxSignature {
  readonly irVersion: number;
  readonly producer: string;
  readonly opsets: readonly { readonly domain: string; readonly version: number }[];
  /** Graph inputs the caller feeds (initializers listed as inputs by older exporters left out). */
  readonly inputs: readonly OnnxValueInfo[];
  readonly outputs: readonly OnnxValueInfo[];
  readonly nodeCount: number;
  /** How many nodes of each operator the graph has (`domain:Op` outside the default domain), most used first. */
  readonly operators: readonly { readonly op: string; readonly count: number }[];
}

/** What the inspector shows of a model file: its signature, name and size. */
export interface ModelCard extends OnnxSignature {
  readonly name: string;
  readonly bytes: number;
}

const TYPE_NAMES: Readonly<Record<number, string>> = {
  1: 'float32',
  2: 'uint8',
  3: 'int8',
  4: 'uint16',
  5: 'int16',
  6: 'int32',
  7: 'int64',
  8: 'string',
  9: 'bool',
  10: 'float16',
  11: 'float64',
  12: 'uint32',
  13: 'uint64',
};

type Reader = protobuf.Reader;

/** Reads the fields of one message, `field(number, wireType)` per field; it must consume or skip. */
function readFields(
  r: Reader,
  end: number,
  field: (number: number, wireType: number) => boolean,
): void {
  while (r.pos < end) {
    const tag = r.uint32();
    const wireType = tag & 7;
    if (!field(tag >>> 3, wireType)) r.skipType(wireType);
  }
}

const LEN = 2;
const VARINT = 0;

function sub(r: Reader): number {
  const length = r.uint32();
  return r.pos + length;
}

function readDim(r: Reader, end: number): number | string | null {
  let dim: number | string | null = null;
  readFields(r, end, (n, w) => {
    if (n === 1 && w === VARINT) dim = Number(r.int64());
    else if (n === 2 && w === LEN) dim = r.string();
    else return false;
    return true;
  });
  return dim;
}

function readValueInfo(r: Reader, end: number): OnnxValueInfo {
  let name = '';
  let type = 'unknown';
  let shape: (number | string | null)[] | null = null;
  readFields(r, end, (n, w) => {
    if (n === 1 && w === LEN) name = r.string();
    else if (n === 2 && w === LEN) {
      // TypeProto: tensor_type (1) → elem_type (1), shape (2) → dim (1).
      readFields(r, sub(r), (tn, tw) => {
        if (tn !== 1 || tw !== LEN) return false;
        readFields(r, sub(r), (fn, fw) => {
          if (fn === 1 && fw === VARINT) {
            const code = r.int32();
            type = TYPE_NAMES[code] ?? `type ${code}`;
          } else if (fn === 2 && fw === LEN) {
            shape = [];
            const dims = shape;
            readFields(r, sub(r), (dn, dw) => {
              if (dn !== 1 || dw !== LEN) return false;
              dims.push(readDim(r, sub(r)));
              return true;
            });
          } else return false;
          return true;
        });
        return true;
      });
    } else return false;
    return true;
  });
  return { name, type, shape };
}

/** A node's operator: `Gemm`, or `com.microsoft:FusedGemm` outside the default domain. */
function readOperator(r: Reader, end: number): string {
  let op = '';
  let domain = '';
  readFields(r, end, (n, w) => {
    if (n === 4 && w === LEN) op = r.string();
    else if (n === 7 && w === LEN) domain = r.string();
    else return false;
    return true;
  });
  return domain === '' || domain === 'ai.onnx' ? op : `${domain}:${op}`;
}

function readInitializerName(r: Reader, end: number): string {
  let name = '';
  readFields(r, end, (n, w) => {
    if (n !== 8 || w !== LEN) return false;
    name = r.string();
    return true;
  });
  return name;
}

/**
 * Reads the signature of an ONNX model; throws `onnx-invalid` saying why
 * when the bytes are not one.
 */
export function readOnnxSignature(bytes: Uint8Array): OnnxSignature {
  // Filled in by the field callbacks below.
  const model = { irVersion: 0, producer: '', hasGraph: false, nodeCount: 0 };
  const opsets: { domain: string; version: number }[] = [];
  const inputs: OnnxValueInfo[] = [];
  const outputs: OnnxValueInfo[] = [];
  const initializers = new Set<string>();
  const operators = new Map<string, number>();
  try {
    const r = protobuf.Reader.create(bytes);
    readFields(r, bytes.length, (n, w) => {
      if (n === 1 && w === VARINT) model.irVersion = Number(r.int64());
      else if (n === 2 && w === LEN) model.producer = r.string();
      else if (n === 7 && w === LEN) {
        model.hasGraph = true;
        readFields(r, sub(r), (gn, gw) => {
          if (gw !== LEN) return false;
          if (gn === 1) {
            model.nodeCount++;
            const op = readOperator(r, sub(r));
            operators.set(op, (operators.get(op) ?? 0) + 1);
          } else if (gn === 5) initializers.add(readInitializerName(r, sub(r)));
          else if (gn === 11) inputs.push(readValueInfo(r, sub(r)));
          else if (gn === 12) outputs.push(readValueInfo(r, sub(r)));
          else return false;
          return true;
        });
      } else if (n === 8 && w === LEN) {
        let domain = '';
        let version = 0;
        readFields(r, sub(r), (on, ow) => {
          if (on === 1 && ow === LEN) domain = r.string();
          else if (on === 2 && ow === VARINT) version = Number(r.int64());
          else return false;
          return true;
        });
        opsets.push({ domain, version });
      } else return false;
      return true;
    });
  } catch (error) {
    throw new FlowbenchError('onnx-invalid', {
      problem: `not an ONNX model: the bytes do not decode as one (${error instanceof Error ? error.message : String(error)})`,
    });
  }
  const { irVersion, producer, hasGraph, nodeCount } = model;
  if (irVersion <= 0 || !hasGraph)
    throw new FlowbenchError('onnx-invalid', {
      problem: `not an ONNX model: ${irVersion <= 0 ? 'no IR version' : 'no graph'} in ${bytes.length} bytes`,
    });
  if (outputs.length === 0)
    throw new FlowbenchError('onnx-invalid', { problem: 'the ONNX model has no graph outputs' });
  return {
    irVersion,
    producer,
    opsets,
    inputs: inputs.filter((i) => !initializers.has(i.name)),
    outputs,
    nodeCount,
    operators: [...operators]
      .map(([op, count]) => ({ op, count }))
      .sort((a, b) => b.count - a.count || (a.op < b.op ? -1 : 1)),
  };
}

/** `float32 [batch×2]`, `int64 [?]`, `float32 [any rank]`. */
export function describeValueInfo(info: OnnxValueInfo): string {
  const dims =
    info.shape === null ? 'any rank' : info.shape.map((d) => (d === null ? '?' : d)).join('×');
  return `${info.type} [${dims}]`;
}
