/**
 * Parallel coordinates of many runs: one vertical axis per param that varies
 * between them (the seed included) and per final metric, each run a line
 * through its values. What a person reads from it is which values of which
 * params go with good metrics; brushing an axis keeps the runs inside.
 *
 * Positions are fractions of an axis's height, 0 at the bottom, so the
 * drawing code only scales; a brush is kept in the same fractions, so what
 * is inside follows what the person sees (a log or flipped axis included).
 * A param of strings or booleans is a categorical axis: its values spread
 * evenly, in sorted order.
 */
import type { InputValue } from './params';

/** What an axis reads of a run: its params, seed, results and final metric values. */
export interface ParallelRun<Id extends string = string> {
  readonly id: Id;
  readonly params: Readonly<Record<string, InputValue>>;
  readonly seed: number;
  /** The flow's outputs; numbers among them are axes. */
  readonly result: Readonly<Record<string, unknown>>;
  /** Each metric's last value, by metric name. */
  readonly finals?: Readonly<Record<string, number>>;
}

export interface ParallelAxis {
  /** `param:lr`, `seed`, `result:accuracy`, `metric:train.loss`. */
  readonly key: string;
  readonly label: string;
  readonly source: 'param' | 'metric';
  /** For a categorical axis, its values in order (as text); absent for a numeric one. */
  readonly categories?: readonly string[];
  /** The numeric range over the runs (a categorical axis: 0 … categories − 1). */
  readonly min: number;
  readonly max: number;
  /** Every value is positive, so a log scale means something. */
  readonly canLog: boolean;
}

/** How an axis is drawn. */
export interface AxisScale {
  readonly log?: boolean;
  /** Largest at the bottom. */
  readonly flip?: boolean;
}

/** A brush: the part of an axis kept, as fractions of its height (low ≤ high). */
export type Brush = readonly [low: number, high: number];

/** A run's raw value on axis `key`, before any scale: a number, or text for a category. */
export function rawValue(run: ParallelRun, key: string): number | string | undefined {
  const [source, name = ''] = splitKey(key);
  const value =
    source === 'seed'
      ? run.seed
      : source === 'param'
        ? run.params[name]
        : source === 'result'
          ? run.result[name]
          : run.finals?.[name];
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' || typeof value === 'boolean') return String(value);
  return undefined;
}

function splitKey(key: string): [string, string?] {
  const colon = key.indexOf(':');
  return colon < 0 ? [key] : [key.slice(0, colon), key.slice(colon + 1)];
}

function axisOf(
  runs: readonly ParallelRun[],
  key: string,
  label: string,
  source: ParallelAxis['source'],
): ParallelAxis | null {
  const values = runs.map((run) => rawValue(run, key)).filter((v) => v !== undefined);
  if (values.length === 0) return null;
  if (values.some((v) => typeof v === 'string')) {
    const categories = [...new Set(values.map(String))].sort();
    return { key, label, source, categories, min: 0, max: categories.length - 1, canLog: false };
  }
  const numbers = values as number[];
  const min = Math.min(...numbers);
  const max = Math.max(...numbers);
  return { key, label, source, min, max, canLog: min > 0 };
}

/**
 * The axes for `runs`: each param whose value differs between them (sorted,
 * the seed last), then each numeric result and final metric any run has.
 */
export function parallelAxes(runs: readonly ParallelRun[]): ParallelAxis[] {
  const params = new Set<string>();
  const results = new Set<string>();
  const finals = new Set<string>();
  for (const run of runs) {
    for (const name of Object.keys(run.params)) params.add(name);
    for (const [name, value] of Object.entries(run.result))
      if (typeof value === 'number') results.add(name);
    for (const name of Object.keys(run.finals ?? {})) finals.add(name);
  }
  const varies = (key: string) =>
    new Set(runs.map((run) => JSON.stringify(rawValue(run, key) ?? null))).size > 1;
  const axes: ParallelAxis[] = [];
  for (const name of [...params].sort())
    if (varies(`param:${name}`)) axes.push(axisOf(runs, `param:${name}`, name, 'param')!);
  if (varies('seed')) axes.push(axisOf(runs, 'seed', 'seed', 'param')!);
  for (const name of [...results].sort()) {
    const axis = axisOf(runs, `result:${name}`, name, 'metric');
    if (axis) axes.push(axis);
  }
  for (const name of [...finals].sort()) {
    const axis = axisOf(runs, `metric:${name}`, name, 'metric');
    if (axis) axes.push(axis);
  }
  return axes;
}

/** Where `run` sits on `axis`, as a fraction of its height (0 bottom), or undefined without a value. */
export function axisPosition(
  axis: ParallelAxis,
  run: ParallelRun,
  scale: AxisScale = {},
): number | undefined {
  const raw = rawValue(run, axis.key);
  if (raw === undefined) return undefined;
  let at: number;
  if (axis.categories) {
    const index = axis.categories.indexOf(String(raw));
    at = axis.categories.length > 1 ? index / (axis.categories.length - 1) : 0.5;
  } else if (typeof raw !== 'number') {
    return undefined;
  } else if (axis.max === axis.min) {
    at = 0.5;
  } else if (scale.log && axis.canLog) {
    at = (Math.log(raw) - Math.log(axis.min)) / (Math.log(axis.max) - Math.log(axis.min));
  } else {
    at = (raw - axis.min) / (axis.max - axis.min);
  }
  return scale.flip ? 1 - at : at;
}

/** The value at fraction `at` of an axis's height, for its tick labels. */
export function axisValueAt(
  axis: ParallelAxis,
  at: number,
  scale: AxisScale = {},
): number | string {
  const f = scale.flip ? 1 - at : at;
  if (axis.categories) return axis.categories[Math.round(f * (axis.categories.length - 1))] ?? '';
  if (scale.log && axis.canLog)
    return Math.exp(Math.log(axis.min) + f * (Math.log(axis.max) - Math.log(axis.min)));
  return axis.min + f * (axis.max - axis.min);
}

/**
 * The ids of the runs inside every brush (a run without a value on a
 * brushed axis is outside it), in the order of `runs`.
 */
export function runsInBrushes<Id extends string>(
  runs: readonly ParallelRun<Id>[],
  axes: readonly ParallelAxis[],
  brushes: Readonly<Record<string, Brush>>,
  scales: Readonly<Record<string, AxisScale>> = {},
): Id[] {
  const brushed = axes.filter((axis) => brushes[axis.key] !== undefined);
  return runs
    .filter((run) =>
      brushed.every((axis) => {
        const at = axisPosition(axis, run, scales[axis.key]);
        const [low, high] = brushes[axis.key]!;
        // A hair of slack: a run drawn exactly on a brush's edge is inside it.
        return at !== undefined && at >= low - 1e-9 && at <= high + 1e-9;
      }),
    )
    .map((run) => run.id);
}

/** How a person has set the view: what a report of it draws again. */
export interface ParallelView {
  /** Keys of the axes not drawn. */
  readonly hidden: readonly string[];
  readonly scales: Readonly<Record<string, AxisScale>>;
  /** The brushes on drawn axes. */
  readonly brushes: Readonly<Record<string, Brush>>;
  /** Key of the axis the lines are coloured by; null for the default. */
  readonly colourBy: string | null;
}

/** The axis lines are coloured by: `key`'s, or else the first metric's, or else the last axis. */
export function colourAxisOf(
  axes: readonly ParallelAxis[],
  key: string | null = null,
): ParallelAxis | undefined {
  return axes.find((a) => a.key === key) ?? axes.find((a) => a.source === 'metric') ?? axes.at(-1);
}
