/**
 * The plotted series as files: CSV for spreadsheets and pandas, JSON for
 * scripts. Both hold every shown run at once, one column (or one series) per
 * run, at full resolution, not the decimated points the canvas drew.
 *
 * CSV rows are the union of every column's x values, so runs that share steps
 * share rows and a cell is empty where a run has no point at that x. Values
 * keep full precision; non-finite ones are written `NaN`, `Infinity` and
 * `-Infinity`, which pandas and spreadsheets read back. JSON has no such
 * numbers, so there a point is `[x, null, "NaN"]`, as in the run export.
 */
import { alignTables } from './align';

/** One column of a chart export: a run's (or a group's) values beside their x. */
export interface ExportColumn {
  /** Column header, e.g. `0b1c2d3e lr=0.05` or `lr=0.05 mean`. */
  readonly label: string;
  readonly x: ArrayLike<number>;
  readonly y: ArrayLike<number>;
  /** The run the column comes from, when it is one run's. */
  readonly run?: string;
}

/** CSV with header `<xLabel>,<label>,…` and one row per distinct x. */
export function buildCsv(xLabel: string, columns: readonly ExportColumn[]): string {
  const aligned = alignTables(columns.map((c) => ({ x: c.x, ys: [c.y] })));
  const lines = [[xLabel, ...columns.map((c) => c.label)].map(csvField).join(',')];
  for (let r = 0; r < aligned.x.length; r++) {
    const cells = [String(aligned.x[r])];
    for (const column of aligned.ys) {
      const v = column[r];
      cells.push(v === undefined ? '' : String(v));
    }
    lines.push(cells.join(','));
  }
  return `${lines.join('\n')}\n`;
}

function csvField(text: string): string {
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export const CHART_EXPORT_FORMAT = 'flowbench.chart/1';

type SpecialValue = 'NaN' | 'Infinity' | '-Infinity';
/** A point of a chart export: `[x, y]`, or `[x, null, "NaN" | "Infinity" | "-Infinity"]`. */
export type ChartExportPoint = [x: number, y: number] | [x: number, y: null, value: SpecialValue];

/** The JSON a chart exports. */
export interface ChartExport {
  readonly format: typeof CHART_EXPORT_FORMAT;
  readonly metric: string;
  /** What x counts: `step`, `wall time (s)` or `relative time (s)`. */
  readonly x: string;
  readonly series: { label: string; run?: string; points: ChartExportPoint[] }[];
}

/** The chart export of `columns`. */
export function buildChartJson(
  metric: string,
  xLabel: string,
  columns: readonly ExportColumn[],
): ChartExport {
  return {
    format: CHART_EXPORT_FORMAT,
    metric,
    x: xLabel,
    series: columns.map((c) => {
      const points: ChartExportPoint[] = [];
      for (let i = 0; i < c.x.length; i++) {
        const v = c.y[i]!;
        points.push(Number.isFinite(v) ? [c.x[i]!, v] : [c.x[i]!, null, String(v) as SpecialValue]);
      }
      return c.run === undefined
        ? { label: c.label, points }
        : { label: c.label, run: c.run, points };
    }),
  };
}
