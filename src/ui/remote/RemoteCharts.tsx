/**
 * A remote run's live series, charted as a local run's are (the same chart,
 * handed the series rather than reading them from IndexedDB), one chart per
 * metric under the default settings.
 */
import { useMemo } from 'react';
import { columnsOf, type MetricPoint } from '../../core/series/columns';
import { MetricChartView } from '../charts/MetricChart';
import { colourAt, defaultChartSettings, type ShownRun } from '../charts/plot-model';
import { shortId } from '../runs/format';
import type { RemoteRun } from './answers';
import type { RemoteLive } from './remote-store';

function RemoteChart({
  metric,
  shown,
  points,
}: {
  metric: string;
  shown: readonly ShownRun[];
  points: readonly MetricPoint[];
}) {
  const series = useMemo(() => [columnsOf(points)], [points]);
  return (
    <MetricChartView metric={metric} runs={shown} settings={defaultChartSettings} series={series} />
  );
}

export function RemoteCharts({ run, live }: { run: RemoteRun; live: RemoteLive | undefined }) {
  const shown = useMemo(
    () => [
      {
        id: run.runId,
        label: `${shortId(run.runId)} (remote)`,
        colour: colourAt(0),
        params: run.params,
        seed: run.seed ?? 0,
      },
    ],
    [run.runId, run.params, run.seed],
  );
  const series = live?.series ?? {};
  const metrics = Object.keys(series).sort();
  if (metrics.length === 0) return <p className="fb-muted">Waiting for its first values…</p>;
  return (
    <section className="fb-charts-panel" aria-label="Charts">
      <div className="fb-charts">
        {metrics.map((metric) => (
          <RemoteChart key={metric} metric={metric} shown={shown} points={series[metric] ?? []} />
        ))}
      </div>
    </section>
  );
}
