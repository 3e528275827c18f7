/**
 * Run parameters as a person types them: one text per flow input, as the
 * run parameters form holds them (and as a command line would take them).
 * Text becomes a value by the input's type; text that is no number stays
 * text, so the run's checks refuse it by name with the same message as any
 * other bad value. A field may also stand for several values (a sweep).
 */
import type { FlowDocument } from '../flow/document';
import { grid, MAX_SWEEP_RUNS, sweepValues } from './sweep';

/** Typed text by flow input name; an empty or missing field leaves the input to its default. */
export type TypedParams = Readonly<Record<string, string>>;

/**
 * What one run gets from the form: the params typed, and the seed apart.
 * What is left empty is absent, for the run's checks to fill from the
 * flow's defaults (see `resolveRunParams`), the seed included.
 */
export interface FormRun {
  params: Record<string, unknown>;
  seed?: number;
}

/**
 * Turn the form's text into param values; text that is no number stays text,
 * to be refused by name. A numeric `seed` field becomes the run's seed, not
 * a param; left empty, the run takes the `seed` input's default.
 */
export function formParams(flow: FlowDocument, typed: TypedParams): FormRun {
  const params: Record<string, unknown> = {};
  let seed: number | undefined;
  for (const input of flow.inputs) {
    const text = typed[input.name];
    if (text === undefined || text.trim() === '') continue;
    let value: unknown = text;
    if (input.type === 'number' || input.type === 'int')
      value = Number.isFinite(Number(text)) ? Number(text) : text;
    if (input.type === 'boolean') value = text === 'true';
    if (input.name === 'seed' && typeof value === 'number') seed = value;
    else params[input.name] = value;
  }
  return seed === undefined ? { params } : { params, seed };
}

/**
 * The runs a sweep stands for: one per combination of the fields' values.
 * A message instead when a field cannot be read or the grid is too large.
 */
export function planSweep(flow: FlowDocument, typed: TypedParams): FormRun[] | string {
  const axes: { name: string; values: string[] }[] = [];
  for (const input of flow.inputs) {
    const text = typed[input.name];
    if (text === undefined || text.trim() === '') continue;
    const values = sweepValues(input, text);
    if (typeof values === 'string') return values;
    axes.push({ name: input.name, values });
  }
  const size = axes.reduce((n, axis) => n * axis.values.length, 1);
  if (size > MAX_SWEEP_RUNS)
    return `This sweep is ${size} runs; Flowbench runs sweeps of up to ${MAX_SWEEP_RUNS}`;
  return grid(axes).map((combo) => formParams(flow, combo));
}
