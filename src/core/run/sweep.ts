/**
 * Sweeps: a grid of runs from the parameters form. A field may hold one
 * value, a comma list (`0.01, 0.03, 0.1`) or, for integers, an inclusive
 * range (`0..2`); the sweep is every combination, one run each, in one group.
 * Values stay text until `formParams`-style conversion, so a bad item is
 * refused by the same checks, with the same messages, as a single run.
 */
import type { FlowInput } from '../flow/document';

/** The values one form field stands for; a message when it cannot be read. */
export function sweepValues(input: FlowInput, text: string): string[] | string {
  const items = text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  const values: string[] = [];
  for (const item of items) {
    const range = /^(-?\d+)\s*\.\.\s*(-?\d+)$/.exec(item);
    if (!range) {
      values.push(item);
      continue;
    }
    if (input.type !== 'int')
      return `'${input.name}': a range like ${item} needs an integer input; list the values instead`;
    const from = Number(range[1]);
    const to = Number(range[2]);
    if (to < from) return `'${input.name}': the range ${item} is empty (it must go upwards)`;
    if (to - from >= MAX_SWEEP_RUNS)
      return `'${input.name}': the range ${item} has more than ${MAX_SWEEP_RUNS} values`;
    for (let v = from; v <= to; v++) values.push(String(v));
  }
  return values;
}

/** A sweep larger than this is refused rather than flooding the runs table. */
export const MAX_SWEEP_RUNS = 1000;

/** Every combination of the axes, first axis slowest, as one record per run. */
export function grid(
  axes: readonly { name: string; values: readonly string[] }[],
): Record<string, string>[] {
  let combos: Record<string, string>[] = [{}];
  for (const axis of axes)
    combos = combos.flatMap((combo) => axis.values.map((v) => ({ ...combo, [axis.name]: v })));
  return combos;
}
