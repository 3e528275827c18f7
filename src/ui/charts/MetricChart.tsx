/**
 * A live chart of one metric series, drawn by uPlot on a canvas.
 *
 * The series belongs to the caller (a live query over IndexedDB hands in a new
 * array as points arrive); this component keeps no copy of it in React state.
 * It owns one uPlot instance for its lifetime, hands it a decimated view of the
 * points whenever they change or the chart is resized, and destroys it on
 * unmount. Decimating to the pixel width keeps each redraw's cost tied to the
 * chart's size, not to how long the run has been going.
 *
 * The canvas says nothing to assistive technology, so the chart is an element
 * with role `img` named `Chart: <metric>`, described by a one-line summary
 * (count, last, min, max, non-finite) that tests read too.
 */
import { useEffect, useId, useMemo, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import './charts.css';
import { decimate, type ChartPoint } from './decimate';
import { formatSummary, summarizeSeries } from './summary';

export type { ChartPoint } from './decimate';

/** Props of {@link MetricChart}. */
export interface MetricChartProps {
  /** The metric's name, e.g. `train.loss`; the chart is named `Chart: <metric>`. */
  metric: string;
  /** The whole series so far, ascending by step. */
  points: readonly ChartPoint[];
  /** Height of the plot (axes included) in CSS pixels. */
  height?: number;
}

const DEFAULT_HEIGHT = 180;

/** A live line chart of `points` (x = step, y = value) with an accessible summary. */
export function MetricChart({ metric, points, height = DEFAULT_HEIGHT }: MetricChartProps) {
  const summaryId = useId();
  const targetRef = useRef<HTMLDivElement>(null);
  const plotRef = useRef<uPlot | null>(null);
  // The newest points, for the resize handler and for a chart rebuilt after a
  // prop change; written in an effect, read only in effects and callbacks.
  const latestRef = useRef(points);
  const summary = useMemo(() => formatSummary(summarizeSeries(points)), [points]);

  useEffect(() => {
    const target = targetRef.current;
    if (!target) return;
    const width = widthOf(target);
    const plot = new uPlot(
      chartOptions(metric, width, height),
      toData(latestRef.current, width),
      target,
    );
    plotRef.current = plot;

    let observer: ResizeObserver | undefined;
    if (typeof ResizeObserver !== 'undefined') {
      observer = new ResizeObserver(() => {
        const next = widthOf(target);
        if (next === plot.width) return;
        plot.setSize({ width: next, height });
        // A wider chart has room for more buckets; a narrower one needs fewer.
        plot.setData(toData(latestRef.current, next));
      });
      observer.observe(target);
    }
    return () => {
      observer?.disconnect();
      plot.destroy();
      plotRef.current = null;
    };
  }, [metric, height]);

  useEffect(() => {
    latestRef.current = points;
    const plot = plotRef.current;
    if (plot) plot.setData(toData(points, plot.width));
  }, [points]);

  const empty = points.length === 0;
  return (
    <div className="fb-chart">
      <div className="fb-chart__title" aria-hidden="true">
        {metric}
      </div>
      <div
        className="fb-chart__frame"
        role="img"
        aria-label={`Chart: ${metric}`}
        aria-describedby={summaryId}
        data-points={points.length}
        style={{ height }}
      >
        <div ref={targetRef} className="fb-chart__plot" />
        {empty ? <p className="fb-chart__empty">Waiting for data…</p> : null}
      </div>
      <p id={summaryId} className="fb-chart__summary" data-testid={`chart-summary-${metric}`}>
        {summary}
      </p>
    </div>
  );
}

/** The plot's width in CSS pixels: its container's, at least one pixel. */
function widthOf(target: HTMLElement): number {
  return Math.max(1, Math.floor(target.clientWidth));
}

/** Decimated to about two points per pixel column, in uPlot's column layout. */
function toData(points: readonly ChartPoint[], width: number): uPlot.AlignedData {
  const { x, y } = decimate(points, width);
  return [x, y];
}

function chartOptions(metric: string, width: number, height: number): uPlot.Options {
  const axis: uPlot.Axis = {
    stroke: '#1f2328',
    grid: { stroke: '#e4e7eb', width: 1 },
    ticks: { stroke: '#c9ced4', width: 1 },
  };
  return {
    width,
    height,
    // Steps are counts, not timestamps.
    scales: { x: { time: false } },
    series: [{ label: 'step' }, { label: metric, stroke: '#1a56db', width: 1.5, spanGaps: false }],
    axes: [axis, axis],
    // The summary below the chart speaks for it; a hover legend would only
    // resize the frame as it appears.
    legend: { show: false },
  };
}
