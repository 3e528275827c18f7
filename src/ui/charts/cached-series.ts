/**
 * Series of cached nodes: a node that came from the node-output cache did not
 * run, so the run holds no points of its own for it; its series are the run's
 * that computed it (`cachedFrom` on the run node). The charts read them from
 * there, under the selected run's colour, labelled with where they came from.
 */
import { parsePortRef } from '../../core/flow/document';
import type { RunId, RunNodeRow } from '../../core/run/record';
import { shortId } from '../runs/format';
import type { ShownRun } from './plot-model';

/** The run each cached node of a run took its outputs (and series) from, by node id. */
export function cachedSources(nodes: readonly RunNodeRow[] | undefined): Map<string, RunId> {
  const sources = new Map<string, RunId>();
  for (const row of nodes ?? [])
    if (row.status === 'cached' && row.cachedFrom) sources.set(row.node, row.cachedFrom.runId);
  return sources;
}

/** Whether `metric` is a series of a cached node (which the source run holds). */
export function isCachedSeries(metric: string, sources: ReadonlyMap<string, RunId>): boolean {
  return sources.has(parsePortRef(metric).node);
}

/**
 * The runs a chart of `metric` reads: the selected run (`selected`) reads a
 * cached node's series from the run that computed it.
 */
export function runsForMetric(
  runs: readonly ShownRun[],
  selected: RunId,
  metric: string,
  sources: ReadonlyMap<string, RunId>,
): readonly ShownRun[] {
  const source = sources.get(parsePortRef(metric).node);
  if (source === undefined) return runs;
  return runs.map((run) =>
    run.id === selected
      ? { ...run, id: source, label: `${run.label} (cached from ${shortId(source)})` }
      : run,
  );
}
