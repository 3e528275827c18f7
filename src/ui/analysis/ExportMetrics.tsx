/**
 * `Export metrics (CSV)` and `Export metrics (JSON)` in the Runs toolbar:
 * every metric of every picked run as one file in long format
 * (`core/series/long-export.ts`). A node a run took from the node-output
 * cache has no points of its own there; its series are read from the run
 * that computed it and written under the picked run, as its charts show them.
 */
import { parsePortRef } from '../../core/flow/document';
import type { RunId } from '../../core/run/record';
import { buildLongCsv, buildLongJson, type LongSeries } from '../../core/series/long-export';
import { metricNames, metricSeriesColumns } from '../../db/metrics';
import { runNodes } from '../../db/run-nodes';
import { db } from '../db';
import { saveText } from '../charts/downloads';
import { useEditorStore } from '../store/context';

/** Every series of run `id`, its cached nodes' read from the runs that computed them. */
async function seriesOfRun(id: RunId): Promise<LongSeries[]> {
  const sources = new Map<string, RunId>();
  for (const row of await runNodes(db, id))
    if (row.status === 'cached' && row.cachedFrom) sources.set(row.node, row.cachedFrom.runId);
  const own = await metricNames(db, id);
  const borrowed = await Promise.all(
    [...new Set(sources.values())].map(async (source) =>
      (await metricNames(db, source))
        .filter((name) => sources.get(parsePortRef(name).node) === source)
        .map((name) => ({ name, from: source })),
    ),
  );
  const names = [...own.map((name) => ({ name, from: id })), ...borrowed.flat()].sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  return Promise.all(
    names.map(async ({ name, from }) => ({
      run: id,
      metric: name,
      columns: await metricSeriesColumns(db, from, name),
    })),
  );
}

async function seriesOfRuns(ids: readonly RunId[]): Promise<LongSeries[]> {
  const all: LongSeries[] = [];
  for (const id of ids) all.push(...(await seriesOfRun(id)));
  return all;
}

export function ExportMetricsButtons({ picked }: { picked: readonly RunId[] }) {
  const store = useEditorStore();
  const stem = `flowbench-metrics-${String(picked.length)}-run${picked.length === 1 ? '' : 's'}`;
  const exportAs = async (kind: 'csv' | 'json') => {
    try {
      // Oldest first (ids are time-ordered), as a person reads a history.
      const series = await seriesOfRuns([...picked].sort());
      if (kind === 'csv') saveText(`${stem}.csv`, buildLongCsv(series), 'text/csv');
      // Compact: a row per point, and a long sweep holds a million of them.
      else saveText(`${stem}.json`, JSON.stringify(buildLongJson(series)), 'application/json');
    } catch (error) {
      store.getState().alert(`Could not export the runs' metrics: ${String(error)}`);
    }
  };
  return (
    <>
      <button type="button" disabled={picked.length === 0} onClick={() => void exportAs('csv')}>
        Export metrics (CSV)
      </button>
      <button type="button" disabled={picked.length === 0} onClick={() => void exportAs('json')}>
        Export metrics (JSON)
      </button>
    </>
  );
}
