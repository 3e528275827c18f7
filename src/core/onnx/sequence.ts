/**
 * Running a model over a sequence, frame by frame, with state carried from
 * one frame to the next: a voice-activity detector takes a frame of samples
 * and its state, and gives a probability and the next state (`stateN →
 * state`); an RNN gives `hn`, fed back as `h`.
 *
 * Idea: the plan is checked once, before any frame runs — the sequence
 * input takes one frame as [1 × … × frame] (every axis but the last of size
 * one, so symbolic dims such as `batch` are bound to 1), and each carried
 * pair joins an output to an input of the same type and shape. A carried
 * input's first value is what the `inputs` map feeds it (a constant). The
 * pairs a person does not declare are proposed from the names and shapes:
 * an output whose name begins with an input's name and has its type and
 * shape (`stateN` for `state`, `hn` for `h`). Trade-off: a sequence is
 * float32 samples read in order (a dataset's features row after row, or an
 * array constant); samples past the last whole frame are left out, not padded.
 */
import { FlowbenchError } from '../errors';
import { describeValueInfo, type OnnxSignature, type OnnxValueInfo } from './signature';

/** An output fed back into an input for the next frame. */
export interface CarriedPair {
  readonly output: string;
  readonly input: string;
}

/** How a model runs over a sequence, checked against its signature. */
export interface SequencePlan {
  /** The model input fed one frame at a time. */
  readonly input: string;
  /** Samples per frame. */
  readonly frame: number;
  /** The dims of one frame as fed, e.g. [1 × 512]. */
  readonly frameDims: readonly number[];
  readonly carried: readonly CarriedPair[];
  /** The output charted once per frame: the first one not carried, or null when all are. */
  readonly charted: string | null;
}

function paramError(param: string, problem: string): FlowbenchError<'node-input'> {
  return new FlowbenchError('node-input', { problem: `param '${param}': ${problem}` });
}

/** Reads `carry`: pairs `output→input` (or `output->input`) separated by commas; `''` is none. */
export function parseCarry(text: string): CarriedPair[] {
  if (text.trim() === '') return [];
  return text.split(',').map((part) => {
    const [output, input, ...rest] = part.split(/→|->/).map((s) => s.trim());
    if (output === undefined || input === undefined || output === '' || input === '' || rest.length)
      throw paramError(
        'carry',
        `'${part.trim()}' is not a pair output→input (e.g. "stateN→state, hn→h")`,
      );
    return { output, input };
  });
}

/** The `carry` param for pairs (what the inspector writes, and what a run logs). */
export function formatCarry(pairs: readonly CarriedPair[]): string {
  return pairs.map((p) => `${p.output}→${p.input}`).join(', ');
}

/** Whether two declared shapes may hold the same tensor (symbolic dims by name, unknowns match). */
function sameShape(a: OnnxValueInfo['shape'], b: OnnxValueInfo['shape']): boolean {
  if (a === null || b === null) return true;
  return (
    a.length === b.length && a.every((dim, i) => dim === null || b[i] === null || dim === b[i])
  );
}

/**
 * The pairs proposed for a model: for each input but the sequence's, the
 * output of its type and shape whose name begins with the input's name
 * (the shortest such name when there are several).
 */
export function proposeCarry(signature: OnnxSignature, sequenceInput: string): CarriedPair[] {
  const taken = new Set<string>();
  const pairs: CarriedPair[] = [];
  for (const input of signature.inputs) {
    if (input.name === sequenceInput) continue;
    const output = signature.outputs
      .filter(
        (o) =>
          !taken.has(o.name) &&
          o.name !== input.name &&
          o.name.startsWith(input.name) &&
          o.type === input.type &&
          sameShape(o.shape, input.shape),
      )
      .sort((a, b) => a.name.length - b.name.length)[0];
    if (output === undefined) continue;
    taken.add(output.name);
    pairs.push({ output: output.name, input: input.name });
  }
  return pairs;
}

/** One frame's dims for the sequence input: 1 on every axis but the last, which is `frame`. */
function frameDimsOf(input: OnnxValueInfo, frame: number): number[] {
  if (input.shape === null) return [1, frame];
  if (input.shape.length === 0)
    throw new FlowbenchError('model-feed', {
      input: input.name,
      problem: `takes ${describeValueInfo(input)}; a frame of a sequence needs at least one dimension`,
    });
  return input.shape.map((dim, axis) => {
    const last = axis === input.shape!.length - 1;
    const size = last ? frame : 1;
    if (typeof dim === 'number' && dim !== size)
      throw new FlowbenchError('model-feed', {
        input: input.name,
        problem: last
          ? `takes ${describeValueInfo(input)}; its last dimension is ${dim}, the frame has ${frame} samples (param 'frame')`
          : `takes ${describeValueInfo(input)}; dimension ${axis} is ${dim}, a frame has 1 there`,
      });
    return size;
  });
}

/**
 * Checks a sequence run against the model's signature: the sequence input,
 * the frame length (0: the input's last dim, when it is fixed), the carried
 * pairs (`''`: proposed). Throws `node-input` or `model-feed` naming what
 * does not fit.
 */
export function planSequence(
  signature: OnnxSignature,
  params: { readonly input: string; readonly frame: number; readonly carry: string },
): SequencePlan {
  const listed = (values: readonly OnnxValueInfo[]) =>
    values.map((v) => `${v.name} ${describeValueInfo(v)}`).join(', ') || 'none';
  const input = signature.inputs.find((i) => i.name === params.input);
  if (input === undefined)
    throw paramError(
      'sequence',
      `the model has no input '${params.input}'; its inputs are ${listed(signature.inputs)}`,
    );
  if (input.type !== 'float32')
    throw new FlowbenchError('model-feed', {
      input: input.name,
      problem: `takes ${describeValueInfo(input)}; a sequence gives float32 frames`,
    });
  const last = input.shape?.[input.shape.length - 1];
  const frame = params.frame > 0 ? params.frame : typeof last === 'number' ? last : 0;
  if (!Number.isInteger(frame) || frame < 1)
    throw paramError(
      'frame',
      `the samples per frame are not known: input '${input.name}' takes ${describeValueInfo(input)}; set a whole number ≥ 1`,
    );
  const frameDims = frameDimsOf(input, frame);
  const declared = parseCarry(params.carry);
  const carried = declared.length > 0 ? declared : proposeCarry(signature, input.name);
  const seenInputs = new Set<string>();
  for (const pair of carried) {
    const output = signature.outputs.find((o) => o.name === pair.output);
    const fed = signature.inputs.find((i) => i.name === pair.input);
    if (output === undefined)
      throw paramError(
        'carry',
        `the model has no output '${pair.output}'; its outputs are ${listed(signature.outputs)}`,
      );
    if (fed === undefined)
      throw paramError(
        'carry',
        `the model has no input '${pair.input}'; its inputs are ${listed(signature.inputs)}`,
      );
    if (fed.name === input.name)
      throw paramError('carry', `'${fed.name}' is the sequence input; it cannot also be carried`);
    if (seenInputs.has(fed.name))
      throw paramError('carry', `input '${fed.name}' is carried from two outputs`);
    seenInputs.add(fed.name);
    if (output.type !== fed.type || !sameShape(output.shape, fed.shape))
      throw paramError(
        'carry',
        `output '${output.name}' is ${describeValueInfo(output)}; input '${fed.name}' takes ${describeValueInfo(fed)}`,
      );
  }
  const carriedOutputs = new Set(carried.map((p) => p.output));
  const charted = signature.outputs.find((o) => !carriedOutputs.has(o.name))?.name ?? null;
  return { input: input.name, frame, frameDims, carried, charted };
}

/**
 * A frame of zeros as a nested array of `dims`: what the sequence input's
 * feed is planned as while the other inputs' constants are made (and
 * checked), so that their symbolic dims take the frame's sizes.
 */
export function frameStandIn(dims: readonly number[]): unknown[] {
  const nest = (rest: readonly number[]): unknown[] | number => {
    const [first, ...more] = rest;
    return first === undefined ? 0 : Array.from({ length: first }, () => nest(more));
  };
  return nest(dims) as unknown[];
}

/** How many whole frames a sequence of `length` samples holds. */
export function frameCount(length: number, frame: number): number {
  return Math.floor(length / frame);
}

/** The row-major numbers of an array constant given as a sequence; throws naming the input. */
export function sequenceOf(input: string, source: readonly unknown[]): Float32Array {
  const values = (source as unknown[]).flat(Infinity);
  const bad = values.findIndex((v) => typeof v !== 'number');
  if (bad >= 0)
    throw new FlowbenchError('model-feed', {
      input,
      problem: `is the sequence; its constant's element ${bad} (${JSON.stringify(values[bad])}) is not a number`,
    });
  return Float32Array.from(values as number[]);
}
