/**
 * Series of cached nodes: a node that came from the node-output cache did not
 * run, so its run holds no points of its own for it; its series are the run's
 * that computed it (`cachedFrom` on the run node). The charts read them from
 * there, under the shown run's colour, labelled with where they came from.
 */
import { parsePortRef } from '../../core/flow/document';
import type { RunId } from '../../core/run/record';
import { shortId } from '../runs/format';
import type { ShownRun } from './plot-model';

/** For each run, the run each of its cached nodes took its outputs (and series) from. */
export type CachedSources = ReadonlyMap<RunId, ReadonlyMap<string, RunId>>;

/** `[run, node, source]` triples as a map by run, then node. */
export function cachedSources(
  cached: readonly (readonly [RunId, string, RunId])[] | undefined,
): CachedSources {
  const byRun = new Map<RunId, Map<string, RunId>>();
  for (const [run, node, source] of cached ?? []) {
    const nodes = byRun.get(run) ?? new Map<string, RunId>();
    nodes.set(node, source);
    byRun.set(run, nodes);
  }
  return byRun;
}

/** The runs the cached nodes' series are stored in. */
export function sourceRuns(sources: CachedSources): RunId[] {
  return [...new Set([...sources.values()].flatMap((nodes) => [...nodes.values()]))];
}

/** Whether `metric` is a series of a node some shown run has cached. */
export function isCachedSeries(metric: string, sources: CachedSources): boolean {
  const { node } = parsePortRef(metric);
  return [...sources.values()].some((nodes) => nodes.has(node));
}

/** The runs a chart of `metric` reads: each run's cached node from the run that computed it. */
export function runsForMetric(
  runs: readonly ShownRun[],
  metric: string,
  sources: CachedSources,
): readonly ShownRun[] {
  const { node } = parsePortRef(metric);
  if (!runs.some((run) => sources.get(run.id as RunId)?.has(node))) return runs;
  return runs.map((run) => {
    const source = sources.get(run.id as RunId)?.get(node);
    return source === undefined
      ? run
      : { ...run, id: source, label: `${run.label} (cached from ${shortId(source)})` };
  });
}
