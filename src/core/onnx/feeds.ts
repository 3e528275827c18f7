/**
 * Feeding a model's inputs, mapped rather than assumed: each input the model
 * declares is fed from the node's dataset (its rows, float32 [rows ×
 * features]), from the tensor on one of its tensor ports (`tensor`,
 * `tensor2` … `tensor4`: a `data.tensor` array each, as it is shaped, one
 * input per port) or from a constant typed in the inspector, and every feed
 * is checked against the input's element type and shape before anything runs.
 *
 * Symbolic dims (`batch`) are bound by the first feed that fixes them — the
 * dataset and the tensors, then array constants in the model's order — and must agree
 * everywhere else, so a state input [2 × batch × 128] given as one number is
 * filled to the batch of the rows fed beside it. Constants stay plain numbers
 * here (`TypedConstant`); the typed array a model wants is made only where
 * the runtime hands it to onnxruntime. Every numeric type onnxruntime takes
 * can be typed (float64 as the JSON number itself; int8 … uint32 within
 * their ranges, `constant-types.ts`). Trade-off: constants are typed as
 * JSON, so an int64 or a uint64 must be a safe integer (within ±2^53);
 * larger ones could not be written exactly — one beyond that comes from a
 * tensor. A tensor arrives in its own element type (an int64 `.npy` as bigints): a float32
 * input takes a float32 tensor as it is; any other pair is converted value
 * by value where no value changes (`tensor-feed.ts`), and refused naming the
 * input, both types and the first value that would.
 */
import { FlowbenchError, isFlowbenchError } from '../errors';
import { constantTypes, type ConstantType, type TypedConstant } from '../runtime/tensor-runtime';
import { describeValueInfo, type OnnxValueInfo } from './signature';
import { convertTensor, type FedTensor } from './tensor-feed';
import { dtypeOf } from '../arrays/dtypes';
import { isConstantType, isSmallInteger, outOfRange } from './constant-types';

/**
 * The node's tensor ports, each feeding at most one model input. A fixed
 * set rather than ports made per input: a flow's ports are the kind's, so a
 * flow drawn with them opens and validates the same everywhere, and four
 * cover the multi-input models people bring (a voice detector takes three).
 */
export const tensorPorts = ['tensor', 'tensor2', 'tensor3', 'tensor4'] as const;
export type TensorPort = (typeof tensorPorts)[number];

/** Whether a source names a tensor port. */
export function isTensorPort(source: unknown): source is TensorPort {
  return (tensorPorts as readonly unknown[]).includes(source);
}

/** A tensor port in messages: `the tensor` for the first (as before there were more), else its name. */
export function describeTensorPort(port: TensorPort): string {
  return port === 'tensor' ? 'the tensor' : `the tensor on port '${port}'`;
}

/** Where one model input's values come from: the dataset's rows, a tensor port's array, or a constant (JSON). */
export type InputSource = 'dataset' | TensorPort | number | boolean | readonly unknown[];

/** Model input name → its source; the node's `inputs` param, as JSON. */
export type InputMap = Readonly<Record<string, InputSource>>;

/** What the planner needs of the dataset: its rows' shape. */
export interface RowsShape {
  readonly count: number;
  readonly featureSize: number;
}

/** What the planner needs of a tensor port's array: its name, type, shape and values. */
export type PortTensor = FedTensor;

/** The arrays on the node's tensor ports, by port (a port not wired is absent). */
export type PortTensors = Readonly<Partial<Record<TensorPort, PortTensor>>>;

/** How a model is fed, checked against its signature. */
export interface FeedPlan {
  /** The input the dataset's rows feed, or null when none is mapped to them. */
  readonly dataset: string | null;
  /**
   * The float32 inputs a float32 array feeds as it is, each to the port it
   * comes from (an input fed from a tensor it is converted from is among `constants`).
   */
  readonly tensors: Readonly<Record<string, TensorPort>>;
  /** The constant of every other input, by input name. */
  readonly constants: Readonly<Record<string, TypedConstant>>;
  /** Each symbolic dim's size as the feeds bound it. */
  readonly dims: Readonly<Record<string, number>>;
}

/** The most elements one constant may be filled to (64 MiB of int64). */
export const MAX_CONSTANT_ELEMENTS = 1 << 23;

function paramError(problem: string): FlowbenchError<'node-input'> {
  return new FlowbenchError('node-input', { problem: `param 'inputs': ${problem}` });
}

function isSource(value: unknown): value is InputSource {
  return (
    value === 'dataset' ||
    isTensorPort(value) ||
    typeof value === 'number' ||
    typeof value === 'boolean' ||
    Array.isArray(value)
  );
}

/** Reads the `inputs` param; `''` is an empty map. Throws `node-input` saying what is wrong. */
export function parseInputMap(text: string): InputMap {
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw paramError(`not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw paramError('expected a JSON object of model input name → source');
  for (const [name, source] of Object.entries(parsed))
    if (!isSource(source))
      throw paramError(
        `input '${name}' is fed from "dataset", a tensor port (${tensorPorts.map((p) => `"${p}"`).join(', ')}), a number, true/false or an array; got ${JSON.stringify(source)}`,
      );
  return parsed as InputMap;
}

/** The `inputs` param for a map (what the inspector writes). */
export function formatInputMap(map: InputMap): string {
  return Object.keys(map).length === 0 ? '' : JSON.stringify(map);
}

/** The map a model is fed by: as given, or — left empty — its one input from the dataset. */
export function effectiveInputMap(inputs: readonly OnnxValueInfo[], map: InputMap): InputMap {
  const [only, ...others] = inputs;
  if (Object.keys(map).length === 0 && only !== undefined && others.length === 0)
    return { [only.name]: 'dataset' };
  return map;
}

function feedError(input: string, problem: string): FlowbenchError<'model-feed'> {
  return new FlowbenchError('model-feed', { input, problem });
}

/** The symbolic dims bound so far, and which input bound each. */
type Bindings = Map<string, { size: number; from: string }>;

/** Checks `given` dims against the input's declared shape, binding its symbolic dims. */
function fitShape(input: OnnxValueInfo, given: readonly number[], what: string, bound: Bindings) {
  const declared = input.shape;
  if (declared === null) return;
  const takes = `takes ${describeValueInfo(input)}`;
  const gives = `${what} [${given.join('×')}]`;
  if (declared.length !== given.length)
    throw feedError(
      input.name,
      `${takes}; ${gives} has ${given.length} dimension${given.length === 1 ? '' : 's'}, not ${declared.length}`,
    );
  declared.forEach((dim, axis) => {
    const size = given[axis]!;
    if (typeof dim === 'number') {
      if (dim !== size)
        throw feedError(input.name, `${takes}; dimension ${axis} is ${dim}, ${gives} has ${size}`);
    } else if (typeof dim === 'string') {
      const known = bound.get(dim);
      if (known === undefined) bound.set(dim, { size, from: input.name });
      else if (known.size !== size)
        throw feedError(
          input.name,
          `${takes}; dimension ${axis} ('${dim}') is ${known.size} as input '${known.from}' has it, ${gives} has ${size}`,
        );
    }
  });
}

/**
 * What does not fit when an array of `dims` feeds `input` (its rank, a fixed
 * dimension), as the run's own check would say it (`what` names the array),
 * or null when it fits; for the inspector, before a run.
 */
export function tensorShapeProblem(
  input: OnnxValueInfo,
  dims: readonly number[],
  what: string,
): string | null {
  try {
    fitShape(input, dims, what, new Map());
    return null;
  } catch (error) {
    if (isFlowbenchError(error, 'model-feed')) return error.message;
    throw error;
  }
}

/** A JSON array's dims and row-major values; throws when it is not rectangular. */
function flatten(input: string, value: readonly unknown[]): { dims: number[]; values: unknown[] } {
  const dims: number[] = [];
  for (let level: unknown = value; Array.isArray(level); level = (level as unknown[])[0])
    dims.push((level as unknown[]).length);
  const values: unknown[] = [];
  const walk = (v: unknown, depth: number, at: string): void => {
    if (depth === dims.length) {
      if (Array.isArray(v))
        throw feedError(
          input,
          `is given a constant that is not a rectangular array: ${at} nests deeper`,
        );
      values.push(v);
      return;
    }
    if (!Array.isArray(v) || v.length !== dims[depth])
      throw feedError(
        input,
        `is given a constant that is not a rectangular array: ${at} has ${Array.isArray(v) ? v.length : 'no'} elements where its siblings have ${dims[depth]}`,
      );
    v.forEach((w, i) => walk(w, depth + 1, `${at}[${i}]`));
  };
  walk(value, 0, 'the constant');
  return { dims, values };
}

/** Why `v` is not a value of `type`, or null when it is one. */
function misfit(type: ConstantType, v: unknown): string | null {
  if (type === 'bool')
    return typeof v === 'boolean' || v === 0 || v === 1 ? null : 'not a bool (true, false, 0 or 1)';
  if (typeof v !== 'number') return `not a number (${type})`;
  if (isSmallInteger(type)) return outOfRange(type, v);
  switch (type) {
    case 'float64':
      return null; // a JSON number is a double: taken exactly
    case 'float32':
      return Math.abs(v) <= 3.4028234663852886e38 ? null : 'beyond float32’s range';
    case 'float16':
      return Math.abs(v) <= 65504 ? null : 'beyond float16’s range (±65504)';
    case 'int64':
      return Number.isSafeInteger(v)
        ? null
        : 'not an int64 typed exactly (a whole number within ±2^53)';
    case 'uint64':
      return Number.isSafeInteger(v) && v >= 0
        ? null
        : 'not a uint64 typed exactly (a whole number from 0 to 2^53)';
  }
}

/** The input as one a constant can be typed for; throws naming its type when it is not. */
function constantInput(input: OnnxValueInfo): OnnxValueInfo & { type: ConstantType } {
  if (isConstantType(input.type)) return input as OnnxValueInfo & { type: ConstantType };
  throw feedError(
    input.name,
    `takes ${input.type}, which a constant cannot be typed as (${constantTypes.join(', ')})`,
  );
}

/** A constant checked value by value against the input's type; `what` names it in messages. */
function typed(
  input: OnnxValueInfo & { type: ConstantType },
  dims: number[],
  values: unknown[],
  what = 'the constant',
) {
  values.forEach((v, i) => {
    const why = misfit(input.type, v);
    if (why !== null)
      throw feedError(
        input.name,
        values.length === 1 && dims.length === 0
          ? `takes ${input.type}; ${what} ${JSON.stringify(v)} is ${why}`
          : `takes ${input.type}; ${what}'s element ${i} (${JSON.stringify(v)}) is ${why}`,
      );
  });
  const numbers = values.map((v) => (v === true ? 1 : v === false ? 0 : (v as number)));
  const constant: TypedConstant = { location: 'constant', type: input.type, dims, values: numbers };
  return constant;
}

/**
 * The dims one number fills for the input: every dim must be known by now.
 * `unsure`: the rows' shape is not known yet, so an unknown dim may still be
 * bound by them (null: cannot tell yet).
 */
function fillDims(
  input: OnnxValueInfo,
  value: unknown,
  bound: Bindings,
  unsure: boolean,
): number[] | null {
  if (input.shape === null) return [];
  if (
    unsure &&
    input.shape.some((dim) => typeof dim !== 'number' && (dim === null || !bound.has(dim)))
  )
    return null;
  const dims = input.shape.map((dim, axis) => {
    if (typeof dim === 'number') return dim;
    const known = dim === null ? undefined : bound.get(dim);
    if (known === undefined)
      throw feedError(
        input.name,
        `takes ${describeValueInfo(input)}; dimension ${axis}${dim === null ? '' : ` ('${dim}')`} is not known, so ${JSON.stringify(value)} cannot fill it: feed an input that fixes it, or type the whole array`,
      );
    return known.size;
  });
  const count = dims.reduce((a, b) => a * b, 1);
  if (count > MAX_CONSTANT_ELEMENTS)
    throw feedError(
      input.name,
      `filled to [${dims.join('×')}] would hold ${count} elements; at most ${MAX_CONSTANT_ELEMENTS}`,
    );
  return dims;
}

/**
 * Checks the map against the model's inputs, the rows and the tensors, and
 * makes each constant. Throws `node-input` for a map that does not cover the
 * model, and `model-feed` naming the input, and the dimension or value, that
 * does not fit. `rows` is `'unknown'` in the inspector, before the node
 * runs: then the tensors are not known either, and only what the map itself
 * says is checked.
 */
export function planFeeds(
  inputs: readonly OnnxValueInfo[],
  given: InputMap,
  rows: RowsShape | null | 'unknown',
  tensors: PortTensors = {},
): FeedPlan {
  const names = new Set(inputs.map((i) => i.name));
  const listed = inputs.map((i) => `${i.name} ${describeValueInfo(i)}`).join(', ') || 'none';
  for (const name of Object.keys(given))
    if (!names.has(name))
      throw paramError(`maps '${name}', which the model does not have; its inputs are ${listed}`);
  const map = effectiveInputMap(inputs, given);
  if (Object.keys(map).length === 0)
    throw new FlowbenchError('node-input', {
      problem: `the model has ${inputs.length} inputs (${listed}); map each to the dataset, a tensor or a constant in the inspector`,
    });
  const unknown = rows === 'unknown';
  const bound: Bindings = new Map();
  const constants: Record<string, TypedConstant> = {};
  let dataset: string | null = null;
  /** The input each tensor port feeds, as the map is read. */
  const fromTensor = new Map<TensorPort, string>();
  const tensorFeeds: Record<string, TensorPort> = {};
  for (const input of inputs) {
    const source = map[input.name];
    if (source === undefined)
      throw feedError(
        input.name,
        'is not fed: map it to the dataset, a tensor or a constant in the inspector',
      );
    if (isTensorPort(source)) {
      const port = source;
      const tensor = tensors[port] ?? null;
      const taken = fromTensor.get(port);
      if (taken !== undefined)
        throw feedError(
          input.name,
          `is mapped to ${describeTensorPort(port)}, which already feeds '${taken}'`,
        );
      fromTensor.set(port, input.name);
      if (!unknown && tensor === null)
        throw feedError(
          input.name,
          `is mapped to ${describeTensorPort(port)}, but no tensor is wired to the node's '${port}' port`,
        );
      const typedInput = constantInput(input); // a type a tensor can be converted to
      if (unknown || tensor === null) continue;
      fitShape(input, tensor.dims, `the tensor ${tensor.name}`, bound);
      if (input.type === 'float32' && dtypeOf(tensor) === 'float32') {
        tensorFeeds[input.name] = port;
        continue;
      }
      const converted = convertTensor(tensor, typedInput.type);
      if ('problem' in converted)
        throw feedError(input.name, `takes ${describeValueInfo(input)}; ${converted.problem}`);
      constants[input.name] = {
        location: 'constant',
        type: typedInput.type,
        dims: [...tensor.dims],
        values: converted.values,
      };
      continue;
    }
    if (source !== 'dataset') continue;
    if (dataset !== null)
      throw feedError(input.name, `is mapped to the dataset, which already feeds '${dataset}'`);
    if (rows === null)
      throw feedError(input.name, 'is mapped to the dataset, but no dataset is wired to the node');
    dataset = input.name;
    if (rows === 'unknown') {
      if (input.type !== 'float32' || (input.shape !== null && input.shape.length !== 2))
        throw feedError(
          input.name,
          `takes ${describeValueInfo(input)}; the dataset gives float32 [rows×features]`,
        );
      continue;
    }
    const gives = `float32 [${rows.count}×${rows.featureSize}]`;
    if (input.type !== 'float32')
      throw feedError(input.name, `takes ${describeValueInfo(input)}; the dataset gives ${gives}`);
    fitShape(input, [rows.count, rows.featureSize], "the dataset's rows", bound);
  }
  // Arrays first: their sizes bind symbolic dims a single number is filled to.
  for (const input of inputs) {
    const source = map[input.name];
    if (!Array.isArray(source)) continue;
    const { dims, values } = flatten(input.name, source);
    fitShape(input, dims, 'the constant', bound);
    constants[input.name] = typed(constantInput(input), dims, values);
  }
  // Before the node runs, a dim the rows or the tensors bind is not known yet.
  const unsure = unknown && (dataset !== null || fromTensor.size > 0);
  for (const input of inputs) {
    const source = map[input.name];
    if (source === 'dataset' || isTensorPort(source) || Array.isArray(source)) continue;
    if (source === undefined) continue;
    const typedInput = constantInput(input);
    const value = typed(typedInput, [], [source]).values[0] as number; // checked once, then filled
    const dims = fillDims(input, source, bound, unsure);
    if (dims === null) continue;
    const count = dims.reduce((a, b) => a * b, 1);
    constants[input.name] = {
      location: 'constant',
      type: typedInput.type,
      dims,
      values: new Array<number>(count).fill(value),
    };
  }
  return {
    dataset,
    tensors: tensorFeeds,
    constants,
    dims: Object.fromEntries([...bound].map(([dim, { size }]) => [dim, size])),
  };
}

/**
 * What can be told of a map before the rows and the tensors are known (the
 * inspector's check): inputs not fed or unknown, a dataset mapped to an
 * input that takes no rows, a tensor port mapped twice or to a type no array
 * can be, constants of the wrong type or shape. Null when nothing is wrong
 * yet; the node checks the rest (dims the rows and the tensors fix) when it runs.
 */
export function feedsProblem(inputs: readonly OnnxValueInfo[], map: InputMap): string | null {
  try {
    planFeeds(inputs, map, 'unknown');
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
