/**
 * How much device memory one run of a built graph takes, from its shapes.
 *
 * Idea: admission control must know a step's bytes *before* the step runs,
 * so we infer every tensor's shape from the traced graph (symbolic dims such
 * as `batch` bound by the caller) and walk the nodes in order, keeping each
 * tensor alive from the node that makes it to the last node that reads it
 * (graph outputs to the end). The largest live total is the step's peak.
 * Inputs the caller keeps resident between steps (weights, optimizer state)
 * and the model's own constants are counted apart, because they are held for
 * the whole loop, not per step. Trade-off: it is an estimate — onnxruntime's
 * planner may reuse or fuse buffers (less) and kernels take scratch space
 * (more) — but it scales with the graph exactly as the real use does, and it
 * knows only the operators our builders emit (an unknown one is an error, so
 * a new builder cannot silently escape admission).
 */
import type { GraphTrace, TracedNode } from './graph-trace.ts';
import { ELEM_BYTES, type ElemType } from './proto.ts';

/** A tensor's inferred type and concrete shape. */
export interface InferredTensor {
  readonly elemType: ElemType;
  readonly dims: readonly number[];
}

/** What the shapes of a graph say about one run of it. */
export interface MemoryEstimate {
  /** Bytes of the model's constants (initializers), held while the session lives. */
  readonly constantBytes: number;
  /** Bytes of the inputs named `resident`, held by the caller between runs. */
  readonly residentBytes: number;
  /** Bytes of the other inputs, fed for this run (batch data, scalars). */
  readonly feedBytes: number;
  /**
   * Largest total of fed inputs and intermediate and output tensors alive at
   * once during the run (excluding resident inputs and constants): the bytes
   * to admit before the run.
   */
  readonly peakBytes: number;
}

/** Symbolic dims and shapes for inputs declared without one. */
export interface ShapeBindings {
  /** Values of symbolic dims, e.g. `{ batch: 256 }`. */
  readonly dims?: Readonly<Record<string, number>>;
  /** Concrete shapes of inputs declared with any rank; default `[]` (a scalar). */
  readonly inputShapes?: Readonly<Record<string, readonly number[]>>;
}

const ONNX_TYPES: Readonly<Record<number, ElemType>> = {
  1: 'float32',
  6: 'int32',
  7: 'int64',
  9: 'bool',
};

const UNARY = new Set([
  'Abs', 'Erf', 'Exp', 'Identity', 'Log', 'Neg', 'Reciprocal', 'Relu', 'Sigmoid', 'Sqrt', 'Tanh',
  'Softmax', 'LogSoftmax',
]); // prettier-ignore
const BINARY = new Set(['Add', 'Sub', 'Mul', 'Div', 'Pow', 'Max', 'Min']);
const COMPARE = new Set(['Greater', 'Less', 'Equal', 'GreaterOrEqual', 'LessOrEqual']);
const REDUCE = new Set(['ReduceMax', 'ReduceMin', 'ReduceMean', 'ReduceSum', 'ReduceProd']);

/** Bytes of a tensor. */
export function tensorBytes(t: InferredTensor): number {
  return t.dims.reduce((a, b) => a * b, 1) * ELEM_BYTES[t.elemType];
}

function broadcast(node: TracedNode, shapes: readonly (readonly number[])[]): number[] {
  const rank = Math.max(...shapes.map((s) => s.length));
  const out: number[] = [];
  for (let i = 0; i < rank; i++) {
    let d = 1;
    for (const s of shapes) {
      const v = s[s.length - rank + i] ?? 1;
      if (v !== 1 && d !== 1 && v !== d)
        throw new RangeError(
          `${node.opType} cannot broadcast [${shapes.map((s) => s.join('×')).join('], [')}]`,
        );
      if (v !== 1) d = v;
    }
    out.push(d);
  }
  return out;
}

function intAttr(node: TracedNode, name: string, fallback: number): number {
  const v = node.attrs[name];
  return typeof v === 'number' ? v : fallback;
}

function intsAttr(node: TracedNode, name: string): readonly number[] | undefined {
  const v = node.attrs[name];
  return Array.isArray(v) ? (v as readonly number[]) : undefined;
}

/**
 * Infers the type and concrete shape of every value in `graph`. Throws a
 * RangeError naming the input, dim or operator it cannot resolve.
 */
export function inferShapes(
  graph: GraphTrace,
  bindings: ShapeBindings = {},
): Map<string, InferredTensor> {
  const known = new Map<string, InferredTensor>();
  const constantValues = new Map<string, readonly number[]>();
  for (const input of graph.inputs) {
    const dims =
      input.shape === undefined
        ? (bindings.inputShapes?.[input.name] ?? [])
        : input.shape.map((d) => {
            if (typeof d === 'number') return d;
            const v = bindings.dims?.[d];
            if (v === undefined)
              throw new RangeError(`${graph.name}: input ${input.name} needs a value for "${d}"`);
            return v;
          });
    known.set(input.name, { elemType: input.elemType, dims });
  }
  for (const c of graph.constants) {
    known.set(c.name, { elemType: c.elemType, dims: c.dims });
    if (c.values !== undefined) constantValues.set(c.name, c.values);
  }
  for (const node of graph.nodes) {
    const ins = node.inputs.map((name) => (name === '' ? undefined : known.get(name)));
    ins.forEach((t, i) => {
      const name = node.inputs[i] ?? '';
      if (t === undefined && name !== '')
        throw new RangeError(`${graph.name}: ${node.opType} reads unknown value ${name}`);
    });
    const out = inferNode(graph.name, node, ins, constantValues);
    const first = node.outputs[0];
    if (first !== undefined) known.set(first, out);
  }
  return known;
}

function inferNode(
  graphName: string,
  node: TracedNode,
  ins: readonly (InferredTensor | undefined)[],
  constantValues: ReadonlyMap<string, readonly number[]>,
): InferredTensor {
  const input = (i: number): InferredTensor => {
    const t = ins[i];
    if (t === undefined) throw new RangeError(`${graphName}: ${node.opType} lacks input ${i}`);
    return t;
  };
  const op = node.opType;
  if (UNARY.has(op)) return input(0);
  if (BINARY.has(op))
    return { elemType: input(0).elemType, dims: broadcast(node, [input(0).dims, input(1).dims]) };
  if (COMPARE.has(op))
    return { elemType: 'bool', dims: broadcast(node, [input(0).dims, input(1).dims]) };
  if (REDUCE.has(op)) {
    const x = input(0);
    const axesInput = node.inputs[1];
    const axes =
      axesInput !== undefined && axesInput !== ''
        ? constantValues.get(axesInput)
        : intsAttr(node, 'axes');
    if (axesInput !== undefined && axesInput !== '' && axes === undefined)
      throw new RangeError(`${graphName}: ${op} axes ${axesInput} are not a small constant`);
    const rank = x.dims.length;
    const reduced = new Set((axes ?? x.dims.map((_, i) => i)).map((a) => (a + rank) % rank));
    const keep = intAttr(node, 'keepdims', 1) === 1;
    const dims = x.dims.flatMap((d, i) => (reduced.has(i) ? (keep ? [1] : []) : [d]));
    return { elemType: x.elemType, dims };
  }
  switch (op) {
    case 'Gemm': {
      const [a0, a1] = input(0).dims;
      const [b0, b1] = input(1).dims;
      if (a0 === undefined || a1 === undefined || b0 === undefined || b1 === undefined)
        throw new RangeError(`${graphName}: Gemm needs 2-D inputs`);
      const m = intAttr(node, 'transA', 0) === 1 ? a1 : a0;
      const n = intAttr(node, 'transB', 0) === 1 ? b0 : b1;
      return { elemType: input(0).elemType, dims: [m, n] };
    }
    case 'MatMul': {
      const a = input(0).dims;
      const b = input(1).dims;
      const batch = broadcast(node, [a.slice(0, -2), b.slice(0, -2)]);
      return {
        elemType: input(0).elemType,
        dims: [...batch, a[a.length - 2] ?? 1, b[b.length - 1] ?? 1],
      };
    }
    case 'Transpose': {
      const x = input(0);
      const perm = intsAttr(node, 'perm') ?? x.dims.map((_, i) => x.dims.length - 1 - i);
      return { elemType: x.elemType, dims: perm.map((p) => x.dims[p] ?? 1) };
    }
    case 'Where':
      return {
        elemType: input(1).elemType,
        dims: broadcast(node, [input(0).dims, input(1).dims, input(2).dims]),
      };
    case 'Cast': {
      const to = ONNX_TYPES[intAttr(node, 'to', 1)];
      if (to === undefined) throw new RangeError(`${graphName}: Cast to an unknown type`);
      return { elemType: to, dims: input(0).dims };
    }
    case 'Shape':
      return { elemType: 'int64', dims: [input(0).dims.length] };
    case 'Gather': {
      const data = input(0).dims;
      const axis = (intAttr(node, 'axis', 0) + data.length) % data.length;
      return {
        elemType: input(0).elemType,
        dims: [...data.slice(0, axis), ...input(1).dims, ...data.slice(axis + 1)],
      };
    }
    case 'Conv': {
      // 1-D and up: [N, C, spatial…] with weight [M, C/group, kernel…]; dilation 1.
      const x = input(0).dims;
      const w = input(1).dims;
      const spatial = x.length - 2;
      const pads = intsAttr(node, 'pads') ?? new Array<number>(2 * spatial).fill(0);
      const strides = intsAttr(node, 'strides') ?? new Array<number>(spatial).fill(1);
      const out = x.slice(2).map((d, i) => {
        const k = w[i + 2] ?? 1;
        const padded = d + (pads[i] ?? 0) + (pads[i + spatial] ?? 0);
        return Math.floor((padded - k) / (strides[i] ?? 1)) + 1;
      });
      return { elemType: input(0).elemType, dims: [x[0] ?? 1, w[0] ?? 1, ...out] };
    }
    case 'ConvTranspose': {
      // [N, C, spatial…] with weight [C, M, kernel…]; stride 1, dilation 1.
      const x = input(0).dims;
      const w = input(1).dims;
      const spatial = x.length - 2;
      const pads = intsAttr(node, 'pads') ?? new Array<number>(2 * spatial).fill(0);
      const out = x
        .slice(2)
        .map((d, i) => d - 1 + (w[i + 2] ?? 1) - (pads[i] ?? 0) - (pads[i + spatial] ?? 0));
      return { elemType: input(0).elemType, dims: [x[0] ?? 1, w[1] ?? 1, ...out] };
    }
    case 'MaxPool':
    case 'AveragePool': {
      const x = input(0).dims;
      const kernel = intsAttr(node, 'kernel_shape') ?? [];
      const strides = intsAttr(node, 'strides') ?? kernel.map(() => 1);
      const out = x
        .slice(2)
        .map((d, i) => Math.floor((d - (kernel[i] ?? 1)) / (strides[i] ?? 1)) + 1);
      return { elemType: input(0).elemType, dims: [...x.slice(0, 2), ...out] };
    }
    case 'Expand': {
      const shape = constantValues.get(node.inputs[1] ?? '');
      if (shape === undefined)
        throw new RangeError(`${graphName}: Expand shape is not a small constant`);
      return { elemType: input(0).elemType, dims: broadcast(node, [input(0).dims, shape]) };
    }
    case 'Slice': {
      const x = input(0);
      const [starts, ends, axes] = [1, 2, 3].map((i) => constantValues.get(node.inputs[i] ?? ''));
      if (starts === undefined || ends === undefined)
        throw new RangeError(`${graphName}: Slice bounds are not small constants`);
      const dims = [...x.dims];
      (axes ?? starts.map((_, i) => i)).forEach((axis, i) => {
        const a = (axis + dims.length) % dims.length;
        const d = dims[a] ?? 1;
        const clamp = (v: number) => Math.min(d, Math.max(0, v < 0 ? v + d : v));
        dims[a] = Math.max(0, clamp(ends[i] ?? d) - clamp(starts[i] ?? 0));
      });
      return { elemType: x.elemType, dims };
    }
    case 'Pad': {
      const x = input(0);
      const pads = constantValues.get(node.inputs[1] ?? '');
      if (pads === undefined)
        throw new RangeError(`${graphName}: Pad pads are not a small constant`);
      const rank = x.dims.length;
      return {
        elemType: x.elemType,
        dims: x.dims.map((d, i) => d + (pads[i] ?? 0) + (pads[i + rank] ?? 0)),
      };
    }
    case 'Unsqueeze': {
      const x = input(0);
      const axes = constantValues.get(node.inputs[1] ?? '');
      if (axes === undefined)
        throw new RangeError(`${graphName}: Unsqueeze axes are not a small constant`);
      const rank = x.dims.length + axes.length;
      const inserted = new Set(axes.map((a) => (a + rank) % rank));
      const rest = [...x.dims];
      const dims = Array.from({ length: rank }, (_, i) => (inserted.has(i) ? 1 : rest.shift()!));
      return { elemType: x.elemType, dims };
    }
    case 'Reshape': {
      const x = input(0);
      const shape = constantValues.get(node.inputs[1] ?? '');
      if (shape === undefined)
        throw new RangeError(`${graphName}: Reshape shape is not a small constant`);
      const total = x.dims.reduce((a, b) => a * b, 1);
      // 0 copies the input's dim; one -1 takes what is left.
      const dims = shape.map((d, i) => (d === 0 ? (x.dims[i] ?? 1) : d));
      const known = dims.reduce((a, b) => (b === -1 ? a : a * b), 1);
      return { elemType: x.elemType, dims: dims.map((d) => (d === -1 ? total / known : d)) };
    }
    default:
      throw new RangeError(`${graphName}: no shape rule for operator ${op}`);
  }
}

/**
 * Estimates the memory of one run of `graph`: constants, resident inputs,
 * fed inputs, and the peak of live tensors over the nodes in order.
 */
export function estimateMemory(
  graph: GraphTrace,
  bindings: ShapeBindings & { readonly resident?: readonly string[] } = {},
): MemoryEstimate {
  const shapes = inferShapes(graph, bindings);
  const bytesOf = (name: string): number => {
    const t = shapes.get(name);
    return t === undefined ? 0 : tensorBytes(t);
  };
  const resident = new Set(bindings.resident ?? []);
  for (const name of resident)
    if (!graph.inputs.some((i) => i.name === name))
      throw new RangeError(`${graph.name}: resident ${name} is not an input`);
  const constants = new Set(graph.constants.map((c) => c.name));
  const inputs = new Set(graph.inputs.map((x) => x.name));
  const outputs = new Set(graph.outputs.map((o) => o.name));

  const lastUse = new Map<string, number>();
  graph.nodes.forEach((n, i) => {
    for (const name of n.inputs) if (name !== '') lastUse.set(name, i);
  });

  let residentBytes = 0;
  let feedBytes = 0;
  for (const input of graph.inputs) {
    if (resident.has(input.name)) residentBytes += bytesOf(input.name);
    else feedBytes += bytesOf(input.name);
  }
  // Fed inputs are held by the caller for the whole run.
  let live = feedBytes;
  let peak = live;
  graph.nodes.forEach((node, i) => {
    for (const name of node.outputs) live += bytesOf(name);
    peak = Math.max(peak, live);
    for (const name of new Set(node.inputs)) {
      const intermediate = !inputs.has(name) && !constants.has(name) && !outputs.has(name);
      if (intermediate && lastUse.get(name) === i) live -= bytesOf(name);
    }
    // A value no node reads (and no output keeps) is dropped at once.
    for (const name of node.outputs)
      if (!lastUse.has(name) && !outputs.has(name)) live -= bytesOf(name);
  });
  const constantBytes = graph.constants.reduce(
    (sum, c) => sum + tensorBytes({ elemType: c.elemType, dims: c.dims }),
    0,
  );
  return { constantBytes, residentBytes, feedBytes, peakBytes: peak };
}
