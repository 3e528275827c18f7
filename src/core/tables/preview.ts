/**
 * What the inspector shows of a table file: its detected columns (type and
 * missing count) and its first rows as text. Made in the engine worker from
 * the parsed table and sent to the page, which never parses a file itself.
 */
import { describeColumns, type ColumnInfo } from './columns';
import { defaultFeatures, defaultLabel } from './table-dataset';
import { cellAt, isMissing, textOf, type RawTable, type TableFormat } from './table';

export interface TablePreview {
  readonly format: TableFormat;
  readonly rowCount: number;
  readonly columns: readonly ColumnInfo[];
  /** The first rows, each cell as text (`''` when missing). */
  readonly rows: readonly (readonly string[])[];
  /** What the table node picks when its `label` and `features` params are blank. */
  readonly defaultLabel: string;
  readonly defaultFeatures: readonly string[];
}

/** How many rows a preview shows. */
export const PREVIEW_ROWS = 5;

export function previewTable(table: RawTable, rows = PREVIEW_ROWS): TablePreview {
  const columns = describeColumns(table);
  const label = defaultLabel(columns);
  const shown = Math.min(rows, table.rowCount);
  return {
    format: table.format,
    rowCount: table.rowCount,
    columns,
    rows: Array.from({ length: shown }, (_, r) =>
      table.names.map((_, c) => {
        const cell = cellAt(table, r, c);
        return isMissing(cell) ? '' : textOf(cell);
      }),
    ),
    defaultLabel: label,
    defaultFeatures: defaultFeatures(columns, label),
  };
}
