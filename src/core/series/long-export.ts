/**
 * Every metric of several runs as one table in long format — a row per point:
 * `run, metric, step, value, wall_time` — the shape pandas, R and
 * spreadsheets pivot and group best, and one that needs no alignment of
 * runs whose steps differ. CSV writes non-finite values as `NaN`,
 * `Infinity`, `-Infinity` (which pandas reads back); JSON has no such
 * numbers, so there the value is `null` and `nonfinite` says which it was.
 * `wall_time` is the point's time in epoch seconds, as the record keeps it.
 */
import type { MetricColumns } from './columns';

/** One run's series of one metric. */
export interface LongSeries {
  readonly run: string;
  readonly metric: string;
  readonly columns: Pick<MetricColumns, 'length' | 'step' | 'value' | 'ts'>;
}

export const LONG_CSV_HEADER = 'run,metric,step,value,wall_time';
export const LONG_EXPORT_FORMAT = 'flowbench.metrics-long/1';

/** A row of the JSON export. */
export interface LongRow {
  readonly run: string;
  readonly metric: string;
  readonly step: number;
  readonly value: number | null;
  readonly wall_time: number;
  readonly nonfinite?: 'NaN' | 'Infinity' | '-Infinity';
}

export interface LongExport {
  readonly format: typeof LONG_EXPORT_FORMAT;
  readonly rows: LongRow[];
}

function csvField(text: string): string {
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The CSV: the header, then each series' points in the order given, in step order. */
export function buildLongCsv(series: readonly LongSeries[]): string {
  const lines = [LONG_CSV_HEADER];
  for (const { run, metric, columns } of series) {
    const prefix = `${csvField(run)},${csvField(metric)},`;
    for (let i = 0; i < columns.length; i++)
      lines.push(
        `${prefix}${String(columns.step[i])},${String(columns.value[i])},${String(columns.ts[i])}`,
      );
  }
  return `${lines.join('\n')}\n`;
}

/** The JSON: the same rows as objects. */
export function buildLongJson(series: readonly LongSeries[]): LongExport {
  const rows: LongRow[] = [];
  for (const { run, metric, columns } of series)
    for (let i = 0; i < columns.length; i++) {
      const value = columns.value[i]!;
      const point = { run, metric, step: columns.step[i]!, wall_time: columns.ts[i]! };
      rows.push(
        Number.isFinite(value)
          ? { ...point, value }
          : { ...point, value: null, nonfinite: String(value) as LongRow['nonfinite'] },
      );
    }
  return { format: LONG_EXPORT_FORMAT, rows };
}
