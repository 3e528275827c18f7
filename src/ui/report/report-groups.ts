/**
 * A report's grouped curves, made the way the charts make them: the same
 * `buildCurves` over the same series and settings, so a group's mean, band
 * and smoothed line in the file are the ones on screen, point for point
 * (the report keeps them at full resolution; the viewer decimates nothing).
 */
import type { SeriesInput } from '../../core/series/columns';
import { buildCurves, type ChartSettings, type ShownRun } from '../charts/plot-model';
import type { ReportGroup } from './report-data';

const finite = (value: number) => (Number.isFinite(value) ? value : null);

/**
 * The groups of `runs` (with the metric; `series[i]` is run i's) under
 * `settings`, or undefined when the charts did not group.
 */
export function reportGroups(
  runs: readonly ShownRun[],
  series: readonly SeriesInput[],
  settings: ChartSettings,
): ReportGroup[] | undefined {
  if (settings.groupBy === null) return undefined;
  return buildCurves(runs, series, settings).map((curve) => ({
    label: curve.label,
    colour: curve.colour,
    runs: curve.runIds,
    x: Array.from(curve.x),
    mean: Array.from(curve.raw, finite),
    band: curve.band && {
      low: Array.from(curve.band.low, finite),
      high: Array.from(curve.band.high, finite),
    },
    ...(curve.smoothed && { smoothed: Array.from(curve.smoothed, finite) }),
  }));
}
