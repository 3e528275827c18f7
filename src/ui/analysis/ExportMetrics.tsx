/**
 * `Export metrics (CSV)` and `Export metrics (JSON)` in the Runs toolbar:
 * every metric of every picked run as one file in long format
 * (`core/series/long-export.ts`). A node a run took from the node-output
 * cache has no points of its own there; its series are read from the run
 * that computed it and written under the picked run, as its charts show them.
 */
import type { RunId } from '../../core/run/record';
import { buildLongCsv, buildLongJson, type LongSeries } from '../../core/series/long-export';
import { seriesOfRun } from '../../db/cache-links';
import { metricSeriesColumns } from '../../db/metrics';
import { db } from '../db';
import { saveText } from '../charts/downloads';
import { useEditorStore } from '../store/context';

/** Every series of run `id`, its cached nodes' read from the runs that computed them. */
async function longSeriesOfRun(id: RunId): Promise<LongSeries[]> {
  const series = await seriesOfRun(db, id);
  return Promise.all(
    series.names.map(async (name) => ({
      run: id,
      metric: name,
      columns: await metricSeriesColumns(db, series.runOf(name), name),
    })),
  );
}

/**
 * Every series of runs `ids`, in their order. The runs are read at once:
 * storage answers requests made together in one stretch, where fifty runs
 * read one after another waited for fifty round trips (260–300 ms p95).
 */
async function seriesOfRuns(ids: readonly RunId[]): Promise<LongSeries[]> {
  return (await Promise.all(ids.map(longSeriesOfRun))).flat();
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
