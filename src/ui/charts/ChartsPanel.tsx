/**
 * The charts of the selected run and of the runs picked in the `Runs` table:
 * one chart per metric, each run in its own colour, under shared controls.
 *
 * Runs are named by short id and the params that differ between them (the
 * rest would say nothing). A sweep's runs can be grouped by a param to show
 * each value's mean with a min–max band. Settings are the panel's own view
 * state; the series themselves are read live from IndexedDB by each chart.
 */
import { useMemo, useState } from 'react';
import { findPort } from '../../core/catalog/catalog';
import { parsePortRef } from '../../core/flow/document';
import { builtinCatalog } from '../../core/nodes';
import type { RunId, RunRow } from '../../core/run/record';
import { runValues, type EffectiveParams } from '../../core/run/params';
import type { RunEntry } from '../../core/run/run-entry';
import { describeParams, differingParams } from '../../core/series/params';
import { shortId } from '../runs/format';
import {
  useCachedNodesOfRuns,
  useGroupRuns,
  useMetricNamesOfRuns,
  useRunList,
  useRunsByIds,
} from '../runs/queries';
import { cachedSources, isCachedSeries, runsForMetric, sourceRuns } from './cached-series';
import { useEditor, useEditorStore } from '../store/context';
import { ExportReport } from '../report/ExportReport';
import { ChartControls } from './ChartControls';
import { MetricChart } from './MetricChart';
import { WaitTimeline } from './WaitTimeline';
import { colourAt, defaultChartSettings, type ChartSettings, type ShownRun } from './plot-model';
import './charts.css';

/** Metrics from streaming ports are curves; single values are shown as results. */
function isCurve(run: RunRow, metric: string): boolean {
  const { node, port } = parsePortRef(metric);
  const kind = builtinCatalog.get(run.flowSnapshot.nodes.find((n) => n.id === node)?.kind ?? '');
  return kind ? findPort(kind, 'outputs', port)?.stream === true : true;
}

/** A run's id and the values it ran with (`runValues`), as its row or its list entry gives them. */
type RunValues = EffectiveParams & { readonly id: RunId };

/** The runs as the charts show them: colour by position, label by what differs. */
function shownRuns(runs: readonly RunValues[]): ShownRun[] {
  // The values each run used: a run recorded with its defaults left out compares like one with them.
  const differing = differingParams(runs);
  return runs.map(({ id, params, seed }, i) => {
    const described = describeParams({ params, seed }, differing);
    return {
      id,
      label: described ? `${shortId(id)} ${described}` : shortId(id),
      colour: colourAt(i),
      params,
      seed,
    };
  });
}

/**
 * The values of runs `ids` for the charts, `selected`'s from its row: the
 * others' from the run list the table holds already, so runs just picked are
 * charted without waiting for their rows (a row read stands in for an entry
 * not listed yet). A run in neither (deleted) is left out.
 */
function valuesOfRuns(
  selected: RunRow,
  ids: readonly RunId[],
  list: readonly RunEntry[] | undefined,
  rows: readonly RunRow[] | undefined,
): RunValues[] {
  const wanted = new Set(ids);
  const entries = new Map(list?.filter((e) => wanted.has(e.id)).map((e) => [e.id, e]));
  const rowsById = new Map(rows?.map((row) => [row.id, row]));
  return ids.flatMap((id): RunValues[] => {
    if (id === selected.id) return [{ id, ...runValues(selected) }];
    const entry = entries.get(id);
    if (entry) return [{ id, params: entry.params, seed: entry.seed }];
    const row = rowsById.get(id);
    return row ? [{ id, ...runValues(row) }] : [];
  });
}

export function ChartsPanel({ run }: { run: RunRow }) {
  const store = useEditorStore();
  const picked = useEditor((s) => s.pickedRuns);
  const selectedNode = useEditor((s) => s.selectedNode);
  const ids = useMemo(() => [run.id, ...picked.filter((id) => id !== run.id)], [run.id, picked]);
  const rows = useRunsByIds(ids);
  const ownNames = useMetricNamesOfRuns(ids);
  // The series of the shown runs' cached nodes are the source runs'.
  const cached = useCachedNodesOfRuns(ids);
  const sourceKey = JSON.stringify(cached ?? []);
  const sources = useMemo(
    () => cachedSources(JSON.parse(sourceKey) as [RunId, string, RunId][]),
    [sourceKey],
  );
  const sourceIds = useMemo(() => sourceRuns(sources), [sources]);
  const sourceNames = useMetricNamesOfRuns(sourceIds);
  const names = useMemo(
    () => [
      ...new Set([
        ...(ownNames ?? []),
        ...(sourceNames ?? []).filter((name) => isCachedSeries(name, sources)),
      ]),
    ],
    [ownNames, sourceNames, sources],
  );
  const sweep = useGroupRuns(run.groupId);
  const [chosen, setSettings] = useState<ChartSettings>(defaultChartSettings);

  const runs = useMemo(() => {
    const found = rows?.filter((r) => r.id !== run.id) ?? [];
    return [run, ...found];
  }, [rows, run]);
  const list = useRunList();
  // Run rows and the list change often while a run is live (status, lease);
  // the charts only care about who is shown and how they are named.
  const shownKey = JSON.stringify(shownRuns(valuesOfRuns(run, ids, list, rows)));
  const shown = useMemo(() => JSON.parse(shownKey) as ShownRun[], [shownKey]);
  // The report takes runs' rows: those read so far, each with how the charts show it.
  const report = useMemo(() => {
    const byId = new Map(shown.map((s) => [s.id, s]));
    const read = runs.filter((r) => byId.has(r.id));
    return { runs: read, shown: read.map((r) => byId.get(r.id)!) };
  }, [runs, shown]);

  const groupOptions = useMemo(() => (shown.length > 1 ? differingParams(shown) : []), [shown]);
  const settings = useMemo(
    () =>
      chosen.groupBy !== null && !groupOptions.includes(chosen.groupBy)
        ? { ...chosen, groupBy: null }
        : chosen,
    [chosen, groupOptions],
  );
  const curves = names.filter((m) => runs.some((r) => isCurve(r, m)));
  // A node selected on the canvas narrows the charts to the series it emitted.
  const node =
    selectedNode && run.flowSnapshot.nodes.some((n) => n.id === selectedNode) ? selectedNode : null;
  const metrics = node ? curves.filter((m) => m.startsWith(`${node}.`)) : curves;
  // The data engine's waits go under the loss, where a slow step is seen.
  const timelineUnder = metrics.find((m) => m.endsWith('.loss')) ?? metrics[0];
  // Memoised per metric: a chart re-reads its series when the runs it is handed change.
  const metricsKey = metrics.join('\n');
  const runsOf = useMemo(
    () =>
      new Map(
        metricsKey
          .split('\n')
          .map((metric) => [metric, runsForMetric(shown, metric, sources)] as const),
      ),
    [metricsKey, shown, sources],
  );
  const sweepIds = (sweep ?? []).map((r) => r.id);
  const sweepShown = sweepIds.every((id) => ids.includes(id));

  return (
    <section className="fb-charts-panel" aria-label="Charts">
      <ChartControls
        settings={settings}
        onChange={setSettings}
        groupOptions={groupOptions}
        sweepSize={sweepIds.length}
        sweepShown={sweepShown}
        onCompareSweep={() =>
          store.getState().setPicked([...new Set<RunId>([...picked, ...sweepIds])])
        }
      />
      {shown.length > 1 ? (
        <p className="fb-muted fb-charts-note">
          Comparing {shown.length} runs: the selected run and the runs picked in the table.{' '}
          <ExportReport
            runs={report.runs}
            shown={report.shown}
            metrics={metrics}
            settings={settings}
          />
        </p>
      ) : null}
      {node ? (
        <p className="fb-muted fb-charts-note">
          {metrics.length > 0
            ? `Series of node '${node}'. Click the canvas background to see every series.`
            : `Node '${node}' emitted no series in this run. Click the canvas background to see every series.`}
        </p>
      ) : null}
      <div className="fb-charts">
        {metrics.map((metric) => (
          <MetricChart
            key={`${run.id}:${metric}`}
            metric={metric}
            runs={runsOf.get(metric) ?? shown}
            settings={settings}
          >
            {metric === timelineUnder ? (
              <WaitTimeline runId={run.id} startedAt={run.startedAt} finishedAt={run.finishedAt} />
            ) : null}
          </MetricChart>
        ))}
      </div>
    </section>
  );
}
