/**
 * uPlot options for a metric chart, from its {@link PlotModel}.
 *
 * uPlot's own zoom and legend are switched off: a drag reports the range to
 * the chart, which re-reads that range at full resolution and hands uPlot new
 * data; a double-click reports a reset; the cursor reports the hovered x so
 * the chart's own legend can show every run's value there (uPlot's legend
 * would show only the runs that happen to have a point at the exact x).
 * Scales read their ranges from the newest model through `view`, so new
 * data never needs new options.
 */
import uPlot from 'uplot';
import { xLabels, type XMode } from '../../core/series/columns';
import { logTickLabel, logTicks } from './log-x';
import type { PlotModel, PlotSeries } from './plot-model';

/** What the plot reports back to the chart. */
export interface PlotCallbacks {
  /** A drag selected `[min, max]` of x; `null` after a double-click (reset). */
  zoom(range: [number, number] | null): void;
  /** The cursor is over x (`null`: it left the plot). */
  hover(x: number | null): void;
  /** uPlot has drawn the newest data on the canvas. */
  drawn?(): void;
}

/** Everything that needs new options (a new uPlot) when it changes. */
export function plotSignature(model: PlotModel, settings: PlotSettings): string {
  const series = model.series.map((s) => `${s.key}:${s.role}:${s.colour}`).join(',');
  return `${settings.xMode}|${String(settings.log)}|${String(settings.logX)}|${series}`;
}

/** The settings the options are made from: the x unit, and each axis's scale. */
export interface PlotSettings {
  readonly xMode: XMode;
  readonly log: boolean;
  /** x is in log space already (log-x.ts): ticks go at 1, 2, 5 × 10ⁿ, labelled in x's units. */
  readonly logX: boolean;
}

/** 1, 2, 5, 10, 20, 50 … up to 5e9: whole-step tick spacings. */
const stepIncrements = Array.from(
  { length: 30 },
  (_, i) => [1, 2, 5][i % 3]! * 10 ** Math.floor(i / 3),
);

const axisStyle: uPlot.Axis = {
  stroke: '#1f2328',
  grid: { stroke: '#e4e7eb', width: 1 },
  ticks: { stroke: '#c9ced4', width: 1 },
};

function seriesOptions(s: PlotSeries): uPlot.Series {
  switch (s.role) {
    case 'line':
      return { label: s.label, stroke: s.colour, width: 1.5, spanGaps: false };
    case 'raw':
      // The unsmoothed values, faint behind the smoothed line.
      return {
        label: `${s.label} (raw)`,
        stroke: `${s.colour}4d`,
        width: 1,
        spanGaps: false,
        points: { show: false },
      };
    case 'high':
    case 'low':
      return {
        label: `${s.label} ${s.role === 'high' ? 'max' : 'min'}`,
        stroke: 'transparent',
        width: 0,
        spanGaps: false,
        points: { show: false },
      };
  }
}

/** The options of a chart `width × height` showing `model`; `view()` is the newest model. */
export function plotOptions(
  model: PlotModel,
  settings: PlotSettings,
  size: { width: number; height: number },
  view: () => PlotModel,
  callbacks: () => PlotCallbacks,
): uPlot.Options {
  return {
    ...size,
    scales: {
      x: {
        time: settings.xMode === 'wall' && !settings.logX,
        range: (_u, min, max) => view().xRange ?? [min, max],
      },
      y: {
        // uPlot's `Distr` is an ambient const enum, out of reach under
        // isolatedModules: 3 is logarithmic, 1 linear.
        distr: settings.log ? 3 : 1,
        log: 10,
        range: (_u, min, max) => view().yRange ?? (settings.log ? [1, 10] : [min, max]),
      },
    },
    series: [{ label: xLabels[settings.xMode] }, ...model.series.map(seriesOptions)],
    bands: model.bands.map((b) => ({ series: b.series, fill: `${b.colour}33` })),
    axes: [
      {
        ...axisStyle,
        label: xLabels[settings.xMode],
        labelSize: 16,
        labelFont: '12px system-ui',
        ...(settings.logX
          ? {
              splits: (_u: uPlot, _axis: number, min: number, max: number) => logTicks(min, max),
              values: (_u: uPlot, ticks: number[]) => ticks.map(logTickLabel),
            }
          : // Steps are counts: a zoomed axis must not tick at step 5.25.
            settings.xMode === 'step'
            ? { incrs: stepIncrements }
            : {}),
      },
      { ...axisStyle, size: 56 },
    ],
    // The chart's own legend names the runs; uPlot's would resize the frame.
    legend: { show: false },
    cursor: {
      drag: { x: true, y: false, setScale: false },
      points: { show: false },
      bind: { dblclick: () => null },
    },
    hooks: {
      ready: [
        (u) => {
          u.over.addEventListener('dblclick', () => callbacks().zoom(null));
        },
      ],
      setSelect: [
        (u) => {
          const { left, width } = u.select;
          if (width > 2) callbacks().zoom([u.posToVal(left, 'x'), u.posToVal(left + width, 'x')]);
          u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
        },
      ],
      setCursor: [
        (u) => {
          const left = u.cursor.left;
          callbacks().hover(left === undefined || left < 0 ? null : u.posToVal(left, 'x'));
        },
      ],
      draw: [
        (u) => {
          drawMarks(u, view());
          callbacks().drawn?.();
        },
      ],
    },
  };
}

/**
 * A small triangle under the plot at each non-finite value in view, in its
 * run's colour: the line shows a gap, the mark says why (and shows it even
 * where decimation kept the bucket's finite extremes).
 */
function drawMarks(u: uPlot, model: PlotModel): void {
  if (model.marks.length === 0) return;
  const { ctx } = u;
  const size = 4 * uPlot.pxRatio;
  const bottom = u.bbox.top + u.bbox.height;
  ctx.save();
  for (const { colour, x } of model.marks) {
    ctx.fillStyle = colour;
    ctx.beginPath();
    for (const value of x) {
      const px = u.valToPos(value, 'x', true);
      if (px < u.bbox.left - 1 || px > u.bbox.left + u.bbox.width + 1) continue;
      ctx.moveTo(px, bottom - 2 * size);
      ctx.lineTo(px - size, bottom);
      ctx.lineTo(px + size, bottom);
      ctx.closePath();
    }
    ctx.fill();
  }
  ctx.restore();
}
