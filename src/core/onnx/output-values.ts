/**
 * A model's outputs as a person reads them and as numbers are emitted: in
 * the type the model declares, not the float32 the engine passes on.
 *
 * Idea: an output of another type than float32 or int32 keeps its exact
 * values beside its float32 data (`Tensor.exact`); this is where they are
 * told. int64 and uint64 read as numbers while they are safe integers
 * (within ±2^53) and as their exact digits beyond, in text; a number emitted
 * (a series point) that cannot be one exactly fails, naming the output and
 * the value, rather than charting a rounded one. bool reads as true/false,
 * float16 as the numbers its bits stand for; float64 and the smaller
 * integers (int8 … uint32) as the doubles that hold them exactly — a
 * float64 keeps its digits past float32's, a uint32 past 2^24 stays whole
 * where float32 would round it. Trade-off: descriptions show the first
 * values only, so a value beyond ±2^53 further in is caught only where it
 * is emitted.
 */
import { FlowbenchError } from '../errors';
import type { Tensor } from '../runtime/tensor-runtime';
import type { OnnxValueInfo } from './signature';

/** One value as shown: a number, a bool, or an integer's digits where no number holds it. */
export type OutputValue = number | boolean | string;

/** How many values a description shows. */
const SHOWN = 4;

const isInteger = (type: string) => /^u?int\d+$/.test(type);

/** The element type an output was given in: the model's own when it is not the engine's. */
export function outputType(t: Tensor): string {
  return t.exact?.type ?? t.type;
}

/** Value `i` in the output's own type. */
export function outputValue(t: Tensor, i: number): OutputValue {
  const exact = t.exact;
  if (exact === undefined) return t.data[i]!;
  const v = exact.data[i]!;
  if (typeof v === 'bigint') {
    const n = Number(v);
    return Number.isSafeInteger(n) ? n : v.toString();
  }
  return exact.type === 'bool' ? v !== 0 : v;
}

/**
 * The output's values as numbers for a series or a score (bool as 0/1);
 * throws `model-output` for an int64 beyond ±2^53, which no number holds exactly.
 */
export function outputNumbers(name: string, t: Tensor): ArrayLike<number> {
  const exact = t.exact;
  if (exact === undefined) return t.data;
  if (exact.data instanceof Float64Array) return exact.data;
  return Array.from(exact.data, (v) => {
    const n = Number(v);
    if (!Number.isSafeInteger(n))
      throw new FlowbenchError('model-output', {
        output: name,
        problem: `holds ${v.toString()} (${exact.type}), beyond ±2^53: no number holds it exactly`,
      });
    return n;
  });
}

function shown(type: string, v: OutputValue): string {
  if (typeof v !== 'number' || isInteger(type)) return String(v);
  return String(Number(v.toPrecision(4)));
}

/**
 * `logits: float32 [300×2] = [0.12, -0.4, 1.1, …]`, `stateShape: int64 [3] =
 * [2, 200, 4]`, `positive: bool [2×1] = [true, false]`; an output given in
 * another type than the model declares says so (`n: int64 as float32 …`).
 */
export function describeOutput(info: OnnxValueInfo, t: Tensor): string {
  const type = outputType(t);
  const count = t.exact?.data.length ?? t.data.length;
  const head = Array.from({ length: Math.min(SHOWN, count) }, (_, i) =>
    shown(type, outputValue(t, i)),
  );
  const more = count > head.length ? ', …' : '';
  const label = info.type === type ? type : `${info.type} as ${type}`;
  return `${info.name}: ${label} [${t.dims.join('×')}] = [${head.join(', ')}${more}]`;
}
