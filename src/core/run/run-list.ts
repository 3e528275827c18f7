/**
 * The runs table's logic, apart from React: filter, sort by any column
 * (including a param or a result), and the progress of each sweep group.
 * It reads list entries (`run-entry.ts`), never whole run rows. Each entry's
 * filter text and sort values are made once and kept beside it (entries are
 * replaced, never changed, when their run changes), so sorting and filtering
 * ten thousand runs again costs a comparison per pair, not a rebuild of each
 * run's text.
 */
import type { EffectiveParams } from './params';
import { finishedRunStatuses, type RunStatus } from './record';
import type { RunEntry } from './run-entry';

export type RunSortKey =
  'started' | 'status' | 'flow' | 'duration' | `param:${string}` | `result:${string}`;

export interface RunListQuery {
  text: string;
  status: RunStatus | 'all';
  sort: RunSortKey;
  descending: boolean;
}

export const defaultRunListQuery: RunListQuery = {
  text: '',
  status: 'all',
  sort: 'started',
  descending: true,
};

/** A run's value of the param `name` (the seed for `seed`), as it ran. */
function paramOf(run: RunEntry, name: string): unknown {
  return name === 'seed' ? (run.params.seed ?? run.seed) : run.params[name];
}

/**
 * `lr=0.1 steps=400 seed=0`: every value a run used (an entry, or a run
 * row's `runValues`), as the table shows and a filter matches it.
 */
export function describeRunParams(
  { params, seed }: EffectiveParams,
  format: (value: unknown) => string = String,
): string {
  return Object.entries({ ...params, seed })
    .map(([k, v]) => `${k}=${format(v)}`)
    .join(' ');
}

function sortValue(run: RunEntry, key: RunSortKey): string | number | null {
  if (key === 'started') return run.id; // time-ordered ids sort by creation
  if (key === 'status') return run.status;
  if (key === 'flow') return run.flow;
  if (key === 'duration') return run.durationMs;
  const [kind, name] = [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)];
  const value = kind === 'param' ? paramOf(run, name) : run.result[name];
  return typeof value === 'number' || typeof value === 'string' ? value : null;
}

/** Each entry's filter text, made once per entry (a changed run is a new entry). */
const haystacks = new WeakMap<RunEntry, string>();

/** The text a filter matches against: flow, status, group, params and results. */
function haystack(run: RunEntry): string {
  let text = haystacks.get(run);
  if (text === undefined) {
    text = [
      run.id,
      run.flow,
      run.status,
      run.groupId ?? '',
      run.backend,
      describeRunParams(run),
      ...Object.entries(run.result).map(([k, v]) => `${k}=${String(v)}`),
    ]
      .join(' ')
      .toLowerCase();
    haystacks.set(run, text);
  }
  return text;
}

/**
 * Make the filter text of `runs[from…to)` ahead of a filter, so the first
 * filter of ten thousand runs does not make them all in one task (the runs
 * table calls this a slice at a time while the page is idle).
 */
export function makeFilterTexts(runs: readonly RunEntry[], from: number, to: number): void {
  for (let i = from; i < Math.min(to, runs.length); i++) haystack(runs[i]!);
}

/** Runs that match the query, in its order; runs without the sort value go last. */
export function queryRuns(runs: readonly RunEntry[], query: RunListQuery): RunEntry[] {
  const words = query.text.toLowerCase().split(/\s+/).filter(Boolean);
  const kept =
    query.status === 'all' && words.length === 0
      ? runs
      : runs.filter(
          (run) =>
            (query.status === 'all' || run.status === query.status) &&
            words.every((word) => haystack(run).includes(word)),
        );
  const direction = query.descending ? -1 : 1;
  return kept
    .map((run) => ({ run, value: sortValue(run, query.sort) }))
    .sort((a, b) => {
      if (a.value === null || b.value === null)
        return a.value === b.value ? 0 : a.value === null ? 1 : -1;
      if (a.value === b.value) return 0;
      return (a.value < b.value ? -1 : 1) * direction;
    })
    .map(({ run }) => run);
}

export interface GroupProgress {
  done: number;
  total: number;
}

/** For each sweep group: how many of its runs have finished. */
export function groupProgress(runs: readonly RunEntry[]): Map<string, GroupProgress> {
  const groups = new Map<string, GroupProgress>();
  for (const run of runs) {
    if (!run.groupId) continue;
    const group = groups.get(run.groupId) ?? { done: 0, total: 0 };
    group.total++;
    if (finishedRunStatuses.includes(run.status)) group.done++;
    groups.set(run.groupId, group);
  }
  return groups;
}

/** Param and result names across runs, for sort options. */
export function sortableNames(runs: readonly RunEntry[]): { params: string[]; results: string[] } {
  const params = new Set<string>(['seed']);
  const results = new Set<string>();
  for (const run of runs) {
    Object.keys(run.params).forEach((k) => params.add(k));
    Object.keys(run.result).forEach((k) => results.add(k));
  }
  return { params: [...params].sort(), results: [...results].sort() };
}
