/**
 * What each column of a table holds, decided from its values: `number`,
 * `boolean`, `category` (few distinct values) or `text` (many), with the
 * count of missing cells. The inspector shows it; the table node picks its
 * label and features from it.
 *
 * A column is `number` when nearly all its present cells are numbers, not
 * only when all are: one stray "abc" in a column of 10,000 numbers is a
 * fault in the file, and the person is better served by an error naming
 * that cell than by a column silently turned into 10,000 categories.
 */
import { booleanOf, isMissing, numberOf, readPlainDecimal, textOf, type RawTable } from './table';

export const columnTypes = ['number', 'category', 'text', 'boolean'] as const;
export type ColumnType = (typeof columnTypes)[number];

export interface ColumnInfo {
  readonly name: string;
  readonly type: ColumnType;
  readonly missing: number;
  /** Distinct present values, counted up to `CATEGORY_MAX` + 1 (past that, only "many"). */
  readonly distinct: number;
  /** Whether every present value is an integer (a `number` column only). */
  readonly integers: boolean;
}

/** Share of present cells that must be numbers for a column to be `number`. */
export const NUMBER_SHARE = 0.9;
/** Most distinct values a `category` column may have. */
export const CATEGORY_MAX = 50;

/**
 * What one pass over a column learned, cell by cell, so the dataset is made
 * without reading a cell twice: which cells are missing, and each cell as a
 * number or a yes/no as 1/0 (NaN where missing or neither).
 */
export interface ColumnScan {
  readonly info: ColumnInfo;
  readonly missing: Uint8Array;
  /** Float32, as the dataset's features are; `null` when no cell is a number or a yes/no. */
  readonly numbers: Float32Array | null;
}

/** The type, counts and per-cell values of column `c`. */
export function scanColumn(table: RawTable, c: number): ColumnScan {
  const { rows } = table;
  const name = table.names[c]!;
  const count = table.rowCount;
  const missingCells = new Uint8Array(count);
  // Made at the first number: a column of words never pays for it.
  let values: Float32Array | null = null;
  const parsed = new Float64Array(1);
  let missing = 0;
  let numbers = 0;
  let booleans = 0;
  let integers = true;
  const distinct = new Set<string>();
  for (let r = 0; r < count; r++) {
    const cell = rows[r]![c] ?? null;
    // The common cell first: a plain decimal is present, a number, and its own trimmed text.
    if (typeof cell === 'string' && readPlainDecimal(cell, parsed)) {
      const n = parsed[0]!;
      numbers++;
      (values ??= new Float32Array(count).fill(Number.NaN))[r] = n;
      if (integers && !Number.isInteger(n)) integers = false;
      if (distinct.size <= CATEGORY_MAX) distinct.add(cell);
      continue;
    }
    if (isMissing(cell)) {
      missing++;
      missingCells[r] = 1;
      continue;
    }
    const n = numberOf(cell);
    if (n !== null) {
      numbers++;
      (values ??= new Float32Array(count).fill(Number.NaN))[r] = n;
      if (!Number.isInteger(n)) integers = false;
    } else {
      const b = booleanOf(cell);
      if (b !== null) {
        booleans++;
        (values ??= new Float32Array(count).fill(Number.NaN))[r] = Number(b);
      }
    }
    // Past CATEGORY_MAX the count decides nothing more; stop paying for it.
    if (distinct.size <= CATEGORY_MAX) distinct.add(textOf(cell));
  }
  const present = count - missing;
  const type: ColumnType =
    present > 0 && booleans === present
      ? 'boolean'
      : present > 0 && numbers >= NUMBER_SHARE * present
        ? 'number'
        : distinct.size <= CATEGORY_MAX && distinct.size < Math.max(2, present)
          ? 'category'
          : 'text';
  const info = {
    name,
    type,
    missing,
    distinct: distinct.size,
    integers: type === 'number' && integers,
  };
  return { info, missing: missingCells, numbers: values };
}

/** The type and counts of column `c`. */
export function describeColumn(table: RawTable, c: number): ColumnInfo {
  return scanColumn(table, c).info;
}

/** Every column's type and counts. */
export function describeColumns(table: RawTable): ColumnInfo[] {
  return table.names.map((_, c) => describeColumn(table, c));
}
