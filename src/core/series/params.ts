/**
 * What tells compared runs apart: the parameters whose values differ.
 *
 * A legend that repeats `steps=100 hidden=32` beside every run says nothing;
 * one that says `lr=0.05` and `lr=0.1` says everything. The seed counts as a
 * parameter (it is one, for a flow with a `seed` input), so runs of a sweep
 * over seeds are told apart too. Grouping a sweep by one parameter puts runs
 * with the same value together, e.g. every seed of `lr=0.1`.
 */

/** The part of a run record this module reads. */
export interface ParamsOfRun {
  readonly params: Readonly<Record<string, unknown>>;
  readonly seed: number;
}

/** A run's value of `key`; the seed when `key` is `seed` and the params do not set it. */
export function paramValue(run: ParamsOfRun, key: string): unknown {
  if (key in run.params) return run.params[key];
  return key === 'seed' ? run.seed : undefined;
}

function keyOf(value: unknown): string {
  return value === undefined ? '' : JSON.stringify(value);
}

/** Names of the parameters (seed included) whose values are not the same in every run, sorted, seed last. */
export function differingParams(runs: readonly ParamsOfRun[]): string[] {
  const keys = new Set<string>(['seed']);
  for (const run of runs) for (const key of Object.keys(run.params)) keys.add(key);
  return [...keys]
    .filter((key) => new Set(runs.map((run) => keyOf(paramValue(run, key)))).size > 1)
    .sort((a, b) => (a === 'seed' ? 1 : b === 'seed' ? -1 : a.localeCompare(b)));
}

/** `lr=0.05 seed=1`: a run's values of `keys`, as a legend shows them. */
export function describeParams(run: ParamsOfRun, keys: readonly string[]): string {
  return keys.map((key) => `${key}=${formatParam(paramValue(run, key))}`).join(' ');
}

function formatParam(value: unknown): string {
  if (value === undefined) return '—';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Runs that share one value of the grouping parameter. */
export interface ParamGroup<T> {
  /** `lr=0.05`. */
  readonly label: string;
  readonly members: T[];
}

/**
 * `runs` grouped by their value of `key`, ordered by that value (numerically
 * when every value is a number), members in input order.
 */
export function groupByParam<T extends ParamsOfRun>(
  runs: readonly T[],
  key: string,
): ParamGroup<T>[] {
  const groups = new Map<string, { value: unknown; members: T[] }>();
  for (const run of runs) {
    const value = paramValue(run, key);
    const id = keyOf(value);
    const group = groups.get(id);
    if (group) group.members.push(run);
    else groups.set(id, { value, members: [run] });
  }
  const list = [...groups.values()];
  const numeric = list.every((g) => typeof g.value === 'number');
  list.sort((a, b) =>
    numeric
      ? (a.value as number) - (b.value as number)
      : keyOf(a.value).localeCompare(keyOf(b.value)),
  );
  return list.map((g) => ({ label: `${key}=${formatParam(g.value)}`, members: g.members }));
}
