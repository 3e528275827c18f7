/**
 * GraphBuilder: write an ONNX graph as ordinary code.
 *
 * Idea: each `op()` call appends one node and hands back a `ValueRef` for its
 * output, so a graph reads like the arithmetic it performs and nodes land in
 * topological order by construction. Value names are generated (unique per
 * builder) unless a caller asks for one. Trade-off: the builder does no shape
 * or type inference and knows no operator schemas; a wrong wiring surfaces
 * when onnxruntime loads the model, which the tests of every graph do.
 */
import {
  encodeModel,
  IR_VERSION,
  OPSET_VERSION,
  toRawData,
  type AttributeIR,
  type AttributeValueIR,
  type Dim,
  type ElemType,
  type ModelIR,
  type NodeIR,
  type TensorIR,
  type ValueInfoIR,
} from './proto.ts';

/** A value (tensor) in the graph under construction. */
export interface ValueRef {
  readonly name: string;
}

/** Tensor data an initializer or tensor attribute can hold. */
export type TensorData = Float32Array | Int32Array | BigInt64Array;

/** A tagged attribute value for the types a plain JS value cannot say. */
export type TaggedAttr =
  | { readonly kind: 'float'; readonly value: number }
  | { readonly kind: 'floats'; readonly value: readonly number[] }
  | { readonly kind: 'tensor'; readonly value: TensorData; readonly dims: readonly number[] };

/**
 * An attribute value: a plain integer is an ONNX `INT`, an integer array is
 * `INTS`, a string is `STRING`; floats and tensors must be tagged with
 * {@link float}, {@link floats} or {@link tensor}, because `alpha: 1` would
 * otherwise be ambiguous.
 */
export type AttrValue = number | readonly number[] | string | TaggedAttr;

/** Tags a `FLOAT` attribute. */
export const float = (value: number): TaggedAttr => ({ kind: 'float', value });
/** Tags a `FLOATS` attribute. */
export const floats = (value: readonly number[]): TaggedAttr => ({ kind: 'floats', value });
/** Tags a `TENSOR` attribute (e.g. for `Constant`). */
export const tensor = (value: TensorData, dims: readonly number[]): TaggedAttr => ({
  kind: 'tensor',
  value,
  dims,
});

function elemTypeOf(data: TensorData): ElemType {
  if (data instanceof Float32Array) return 'float32';
  if (data instanceof Int32Array) return 'int32';
  return 'int64';
}

function tensorIR(name: string, data: TensorData, dims: readonly number[]): TensorIR {
  const count = dims.reduce((a, b) => a * b, 1);
  if (count !== data.length) {
    throw new RangeError(
      `tensor ${name}: dims [${dims.join(', ')}] hold ${count} elements, data has ${data.length}`,
    );
  }
  return { name, elemType: elemTypeOf(data), dims: [...dims], rawData: toRawData(data) };
}

function attributeIR(name: string, value: AttrValue): AttributeIR {
  const checkInt = (i: number): number => {
    if (!Number.isSafeInteger(i))
      throw new TypeError(`attribute ${name}: ${i} is not an integer; tag floats with float()`);
    return i;
  };
  let v: AttributeValueIR;
  if (typeof value === 'number') v = { type: 'int', value: checkInt(value) };
  else if (typeof value === 'string') v = { type: 'string', value };
  else if (Array.isArray(value))
    v = { type: 'ints', value: (value as readonly number[]).map(checkInt) };
  else {
    const t = value as TaggedAttr;
    if (t.kind === 'float') v = { type: 'float', value: t.value };
    else if (t.kind === 'floats') v = { type: 'floats', value: t.value };
    else v = { type: 'tensor', value: tensorIR(name, t.value, t.dims) };
  }
  return { name, value: v };
}

/** Options of one `op()` call. */
export interface OpOptions {
  /** Name the output(s) explicitly instead of generating one. */
  readonly name?: string;
  /** Operator domain; default `''` (ai.onnx). */
  readonly domain?: string;
}

/** Builds one ONNX graph and encodes it as a model. */
export class GraphBuilder {
  private readonly names = new Set<string>();
  private readonly nodes: NodeIR[] = [];
  private readonly initializers: TensorIR[] = [];
  private readonly inputs: ValueInfoIR[] = [];
  private readonly outputs: ValueInfoIR[] = [];
  private counter = 0;

  /** @param name the graph's name, kept in the model. */
  constructor(readonly name: string) {}

  private claim(name: string): ValueRef {
    if (name === '') throw new Error('a value name must not be empty');
    if (this.names.has(name))
      throw new Error(`graph ${this.name}: value name "${name}" is already used`);
    this.names.add(name);
    return { name };
  }

  private fresh(stem: string): string {
    let name: string;
    do name = `${stem}_${this.counter++}`;
    while (this.names.has(name));
    return name;
  }

  /** Declares a graph input. `shape` undefined accepts any rank (e.g. a scalar or `[1]`). */
  input(name: string, elemType: ElemType, shape?: readonly Dim[]): ValueRef {
    const ref = this.claim(name);
    this.inputs.push({ name, elemType, shape });
    return ref;
  }

  /** Stores a constant tensor in the model (an ONNX initializer) under `name`. */
  initializer(name: string, data: TensorData, dims: readonly number[]): ValueRef {
    const t = tensorIR(name, data, dims);
    const ref = this.claim(name);
    this.initializers.push(t);
    return ref;
  }

  /** A constant with a generated name: a scalar for a number, a 1-D tensor for an array. */
  constant(value: number | readonly number[], elemType: 'float32' | 'int64' = 'float32'): ValueRef {
    const values = typeof value === 'number' ? [value] : value;
    const dims = typeof value === 'number' ? [] : [values.length];
    const data =
      elemType === 'float32'
        ? Float32Array.from(values)
        : BigInt64Array.from(values, (v) => BigInt(v));
    return this.initializer(this.fresh('const'), data, dims);
  }

  /** Appends a node with one output and returns that output. */
  op(
    opType: string,
    inputs: readonly (ValueRef | null)[],
    attrs: Readonly<Record<string, AttrValue>> = {},
    options: OpOptions = {},
  ): ValueRef {
    const [out] = this.opN(opType, inputs, 1, attrs, options);
    return out as ValueRef;
  }

  /**
   * Appends a node with `outputCount` outputs. A `null` input is an omitted
   * optional input. With `options.name`, outputs are named `name`, `name.1` ….
   */
  opN(
    opType: string,
    inputs: readonly (ValueRef | null)[],
    outputCount: number,
    attrs: Readonly<Record<string, AttrValue>> = {},
    options: OpOptions = {},
  ): ValueRef[] {
    const stem = options.name ?? opType.toLowerCase();
    const outs = Array.from({ length: outputCount }, (_, i) =>
      this.claim(options.name === undefined ? this.fresh(stem) : i === 0 ? stem : `${stem}.${i}`),
    );
    this.nodes.push({
      opType,
      inputs: inputs.map((v) => v?.name ?? ''),
      outputs: outs.map((v) => v.name),
      name: `${opType}_${this.nodes.length}`,
      domain: options.domain,
      attributes: Object.entries(attrs).map(([k, v]) => attributeIR(k, v)),
    });
    return outs;
  }

  /**
   * Declares `value` as a graph output named `name` (an `Identity` node is
   * added when the value carries another name). `shape` undefined: any rank.
   */
  output(value: ValueRef, name: string, elemType: ElemType, shape?: readonly Dim[]): ValueRef {
    const out = value.name === name ? value : this.op('Identity', [value], {}, { name });
    if (this.outputs.some((o) => o.name === name))
      throw new Error(`graph ${this.name}: output "${name}" declared twice`);
    this.outputs.push({ name, elemType, shape });
    return out;
  }

  /**
   * Encodes the graph as ONNX model bytes (IR 8, opset 17); `about` sets the
   * producer's version and the `metadata_props` a file handed to others carries.
   */
  toModel(
    producerName = 'flowbench',
    about: Pick<ModelIR, 'producerVersion' | 'metadataProps'> = {},
  ): Uint8Array {
    return encodeModel({
      ...about,
      irVersion: IR_VERSION,
      opsetImports: [{ domain: '', version: OPSET_VERSION }],
      producerName,
      graph: {
        name: this.name,
        nodes: this.nodes,
        initializers: this.initializers,
        inputs: this.inputs,
        outputs: this.outputs,
      },
    });
  }
}
