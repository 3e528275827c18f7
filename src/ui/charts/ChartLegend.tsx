/**
 * A chart's legend: one entry per run (or group) in its colour, naming it by
 * short id and the params that tell the runs apart, with its last value, or
 * its value under the cursor while the person hovers, and how many of its
 * values were not finite.
 */
import type { XMode } from '../../core/series/columns';
import { formatValue } from '../../core/series/summary';
import type { Curve, HoverValue } from './plot-model';

export interface ChartLegendProps {
  metric: string;
  curves: readonly Curve[];
  xMode: XMode;
  /** Values at the hovered x, or null when the cursor is not on the plot. */
  hover: readonly HoverValue[] | null;
  hoverX: number | null;
}

/** `step 42`, `14:03:07` or `12.5 s`: where the cursor is, in the x unit. */
export function formatX(mode: XMode, x: number): string {
  if (mode === 'step') return `step ${String(Math.round(x))}`;
  if (mode === 'wall') return new Date(x * 1000).toLocaleTimeString();
  return `${formatValue(x)} s`;
}

function hoveredText(v: HoverValue, smoothed: boolean): string {
  let text = formatValue(v.value);
  if (smoothed) text += ` (raw ${formatValue(v.raw)})`;
  if (v.low !== undefined && v.high !== undefined)
    text += ` · ${formatValue(v.low)}–${formatValue(v.high)}`;
  return text;
}

export function ChartLegend({ metric, curves, xMode, hover, hoverX }: ChartLegendProps) {
  const byKey = new Map(hover?.map((v) => [v.key, v]));
  return (
    <div className="fb-chart__legend">
      <p className="fb-chart__hover" aria-live="off">
        {hoverX === null ? ' ' : `at ${formatX(xMode, hoverX)}`}
      </p>
      <ul aria-label={`Legend: ${metric}`}>
        {curves.map((c) => {
          const hovered = byKey.get(c.key);
          const last = c.raw.length > 0 ? c.raw[c.raw.length - 1]! : undefined;
          const value = hover
            ? hovered
              ? hoveredText(hovered, c.smoothed !== null)
              : '—'
            : last === undefined
              ? 'no points yet'
              : `last ${formatValue(c.smoothed ? c.smoothed[c.smoothed.length - 1]! : last)}`;
          return (
            <li key={c.key} data-series={c.key}>
              <span className="fb-chart__swatch" style={{ background: c.colour }} aria-hidden />
              <span className="fb-chart__label">{c.label}</span>
              {c.band || c.runIds.length > 1 ? (
                <span className="fb-muted"> · mean of {c.runIds.length} runs</span>
              ) : null}
              <span className="fb-chart__value"> {value}</span>
              {c.nonFinite > 0 ? (
                <span className="fb-chart__nonfinite"> · {c.nonFinite} non-finite</span>
              ) : null}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
