/**
 * One metric of the shown runs, overlaid on a uPlot canvas, live.
 *
 * The series belong to IndexedDB: a live query hands in what the engine has
 * committed, and this component keeps no copy of it in state. Each change of
 * data, settings, width or zoom becomes curves (full resolution, smoothed
 * once), then a frame (only what is in view, decimated to the width), which
 * is handed to one long-lived uPlot instance; a new instance is made only
 * when the set of drawn series changes.
 *
 * The canvas says nothing to assistive technology, so the chart is an element
 * with role `img` named exactly `Chart: <metric>`, described by a summary per
 * run (count, last, min, max, non-finite) that tests read too; `data-points`
 * counts the selected run's points, and `data-drawn-points` how many of them
 * the canvas showed when uPlot last drew (set from its draw hook, so a test or
 * the bench can tell a point read from a point on screen).
 */
import {
  useEffect,
  useId,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type ReactNode,
} from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import './charts.css';
import type { RunId } from '../../core/run/record';
import { xLabels, type SeriesInput } from '../../core/series/columns';
import { buildChartJson, buildCsv } from '../../core/series/export';
import { formatSummary, summarizeSeries } from '../../core/series/summary';
import { useEditorStore } from '../store/context';
import { useMetricSeriesOfRuns } from '../runs/queries';
import { ChartLegend } from './ChartLegend';
import { saveBlob } from '../files';
import { chartPng, fileStem, saveText } from './downloads';
import {
  buildCurves,
  buildPlot,
  exportColumns,
  valuesAt,
  xIsLog,
  type ChartSettings,
  type Curve,
  type PlotModel,
  type ShownRun,
} from './plot-model';
import { curveOnLogX } from './log-x';
import { plotOptions, plotSignature, type PlotCallbacks } from './plot-options';

/** Props of {@link MetricChart}. */
export interface MetricChartProps {
  /** The metric's name, e.g. `train.loss`; the chart is named `Chart: <metric>`. */
  metric: string;
  /** The runs to overlay, the selected run first. */
  runs: readonly ShownRun[];
  settings: ChartSettings;
  /** Height of the plot (axes included) in CSS pixels. */
  height?: number;
  /** Shown under the chart's summary (e.g. the wait timeline under the loss). */
  children?: ReactNode;
}

/** Props of {@link MetricChartView}: the series handed in rather than read. */
export interface MetricChartViewProps extends MetricChartProps {
  /** One series per run of `runs`, same order; `undefined` while not read yet. */
  series: readonly SeriesInput[] | undefined;
}

const DEFAULT_HEIGHT = 200;
const NO_POINTS: readonly never[] = [];

/** A live chart of `metric` for `runs`, with legend, zoom, export and an accessible summary. */
export function MetricChart(props: MetricChartProps) {
  const ids = useMemo(() => props.runs.map((r) => r.id as RunId), [props.runs]);
  const series = useMetricSeriesOfRuns(ids, props.metric);
  const figure = useFigure(props.runs, series);
  return <MetricChartView {...props} runs={figure.runs} series={figure.series} />;
}

/** Runs and the series read for them, one per run in the same order. */
interface Figure {
  readonly runs: readonly ShownRun[];
  readonly series: readonly SeriesInput[];
}

/**
 * What the chart draws while the series of newly shown runs are read: the
 * last figure read (runs with their series), so the chart never blanks to
 * empty curves in between. Runs taken away leave it at once (the rest were
 * read already), and their series are let go. Once read, `runs` with `series`.
 */
function useFigure(
  runs: readonly ShownRun[],
  series: readonly SeriesInput[] | undefined,
): { runs: readonly ShownRun[]; series: readonly SeriesInput[] | undefined } {
  const [read, setRead] = useState<Figure | null>(null);
  if (series !== undefined) {
    if (read?.runs !== runs || read.series !== series) setRead({ runs, series });
    return { runs, series };
  }
  if (read === null) return { runs, series };
  if (read.runs !== runs) {
    const held = new Map(read.runs.map((run, i) => [run.id, read.series[i]] as const));
    if (runs.every((run) => held.has(run.id)))
      setRead({ runs, series: runs.map((run) => held.get(run.id) ?? NO_POINTS) });
  }
  return read;
}

/** The chart of series already read: what {@link MetricChart} draws, and what the bench drives. */
export function MetricChartView({
  metric,
  runs,
  settings,
  height = DEFAULT_HEIGHT,
  series,
  children,
}: MetricChartViewProps) {
  const summaryId = useId();
  const store = useEditorStore();
  const curves = useMemo(
    () => buildCurves(runs, series ?? NO_POINTS, settings),
    [runs, series, settings],
  );

  // Drawn in log space when x is on a log scale; exported and summarised as recorded.
  const logX = xIsLog(settings);
  const drawn = useMemo(() => (logX ? curves.map(curveOnLogX) : curves), [curves, logX]);
  const plotSettings = useMemo(
    () => ({ xMode: settings.xMode, log: settings.log, logX }),
    [settings.xMode, settings.log, logX],
  );
  // A zoom is in the units (and space) of the x axis it was made on.
  const xKey = `${settings.xMode}${logX ? ' log' : ''}`;

  const frameRef = useRef<HTMLDivElement>(null);
  const targetRef = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  const [zoomState, setZoom] = useState<{ mode: string; range: [number, number] } | null>(null);
  const zoom = zoomState?.mode === xKey ? zoomState.range : null;
  const [hoverX, setHoverX] = useState<number | null>(null);

  // Before the frame is measured nothing is drawn: no need to decimate for it.
  const model = useMemo(
    () =>
      buildPlot(width === 0 ? [] : drawn, {
        width,
        zoom,
        log: settings.log,
        ignoreOutliers: settings.ignoreOutliers,
      }),
    [drawn, width, zoom, settings.log, settings.ignoreOutliers],
  );
  const hover = useMemo(() => (hoverX === null ? null : valuesAt(drawn, hoverX)), [drawn, hoverX]);
  const signature = plotSignature(model, plotSettings);

  const plotRef = useRef<uPlot | null>(null);
  const signatureRef = useRef('');
  const modelRef = useRef<PlotModel>(model);
  const selected = series?.[0]?.length ?? 0;
  const selectedRef = useRef(selected);
  const callbacksRef = useRef<PlotCallbacks>({
    zoom: (range) => setZoom(range ? { mode: xKey, range } : null),
    hover: setHoverX,
    drawn: () => frameRef.current?.setAttribute('data-drawn-points', String(selectedRef.current)),
  });

  useLayoutEffect(() => {
    const frame = frameRef.current;
    if (!frame) return;
    const measure = () => setWidth(Math.max(1, Math.floor(frame.clientWidth)));
    measure();
    if (typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(measure);
    observer.observe(frame);
    return () => observer.disconnect();
  }, []);

  useEffect(() => {
    modelRef.current = model;
    selectedRef.current = selected;
    callbacksRef.current.zoom = (range) => setZoom(range ? { mode: xKey, range } : null);
    const target = targetRef.current;
    if (!target || width === 0) return;
    const plot = plotRef.current;
    if (plot && signatureRef.current === signature) {
      if (plot.width !== width || plot.height !== height) plot.setSize({ width, height });
      plot.setData(model.data as uPlot.AlignedData);
      return;
    }
    plot?.destroy();
    plotRef.current = new uPlot(
      plotOptions(
        model,
        plotSettings,
        { width, height },
        () => modelRef.current,
        () => callbacksRef.current,
      ),
      model.data as uPlot.AlignedData,
      target,
    );
    signatureRef.current = signature;
  }, [model, signature, width, height, plotSettings, selected, xKey]);

  useEffect(
    () => () => {
      plotRef.current?.destroy();
      plotRef.current = null;
    },
    [],
  );

  const summary = useMemo(() => summarize(curves), [curves]);
  const exported = () => exportColumns(curves);
  const xLabel = xLabels[settings.xMode];
  const stem = fileStem(metric);
  const alert = (error: unknown) =>
    store
      .getState()
      .alert(
        `Could not export ${metric}: ${error instanceof Error ? error.message : String(error)}`,
      );

  const savePng = () => {
    const plot = plotRef.current;
    if (!plot) return;
    const legend = curves.map((c) => ({
      colour: c.colour,
      text: c.nonFinite > 0 ? `${c.label} · ${String(c.nonFinite)} non-finite` : c.label,
    }));
    chartPng(plot, metric, legend).then((blob) => saveBlob(`${stem}.png`, blob), alert);
  };

  return (
    <div className="fb-chart">
      <div className="fb-chart__head">
        <div className="fb-chart__title" aria-hidden="true">
          {metric}
        </div>
        <div className="fb-chart__actions">
          {zoom ? (
            <button
              type="button"
              aria-label={`Reset zoom of ${metric}`}
              onClick={() => setZoom(null)}
            >
              Reset zoom
            </button>
          ) : null}
          <button type="button" aria-label={`Download PNG of ${metric}`} onClick={savePng}>
            PNG
          </button>
          <button
            type="button"
            aria-label={`Download CSV of ${metric}`}
            onClick={() => saveText(`${stem}.csv`, buildCsv(xLabel, exported()), 'text/csv')}
          >
            CSV
          </button>
          <button
            type="button"
            aria-label={`Download JSON of ${metric}`}
            onClick={() =>
              saveText(
                `${stem}.json`,
                `${JSON.stringify(buildChartJson(metric, xLabel, exported()))}\n`,
                'application/json',
              )
            }
          >
            JSON
          </button>
        </div>
      </div>
      <div
        ref={frameRef}
        className="fb-chart__frame"
        role="img"
        aria-label={`Chart: ${metric}`}
        aria-describedby={summaryId}
        data-points={selected}
        data-series={curves.length}
        data-x={settings.xMode}
        data-y-scale={settings.log ? 'log' : 'linear'}
        data-x-scale={logX ? 'log' : 'linear'}
        data-smoothing={settings.smoothing}
        data-zoomed={zoom ? 'true' : 'false'}
        style={{ height }}
        title="Drag to zoom, double-click to reset"
      >
        <div ref={targetRef} className="fb-chart__plot" />
        {selected === 0 && curves.every((c) => c.count === 0) ? (
          <p className="fb-chart__empty">Waiting for data…</p>
        ) : null}
      </div>
      <ChartLegend
        metric={metric}
        curves={curves}
        xMode={settings.xMode}
        hover={hover}
        hoverX={hoverX === null || !logX ? hoverX : 10 ** hoverX}
      />
      <p id={summaryId} className="fb-chart__summary" data-testid={`chart-summary-${metric}`}>
        {summary}
      </p>
      {children}
    </div>
  );
}

/** The summary in words: one line for one curve, `label: …` per curve for several. */
function summarize(curves: readonly Curve[]): string {
  const lines = curves.map((c) => {
    const text = formatSummary({
      ...summarizeSeries(c.raw),
      count: c.count,
      nonFinite: c.nonFinite,
    });
    return curves.length === 1 ? text : `${c.label}: ${text}`;
  });
  return lines.length === 0 ? formatSummary(summarizeSeries([])) : lines.join('; ');
}
