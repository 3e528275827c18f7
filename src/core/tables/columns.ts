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
import { booleanOf, isMissing, numberOf, textOf, type RawTable } from './table';

export const columnTypes = ['number', 'category', 'text', 'boolean'] as const;
export type ColumnType = (typeof columnTypes)[number];

export interface ColumnInfo {
  readonly name: string;
  readonly type: ColumnType;
  readonly missing: number;
  /** Distinct present values (capped at `DISTINCT_CAP` + 1: past that, only "many"). */
  readonly distinct: number;
  /** Whether every present value is an integer (a `number` column only). */
  readonly integers: boolean;
}

/** Share of present cells that must be numbers for a column to be `number`. */
export const NUMBER_SHARE = 0.9;
/** Most distinct values a `category` column may have. */
export const CATEGORY_MAX = 50;
const DISTINCT_CAP = 10_000;

/** The type and counts of column `c`. */
export function describeColumn(table: RawTable, c: number): ColumnInfo {
  const cells = table.columns[c]!;
  const name = table.names[c]!;
  let missing = 0;
  let numbers = 0;
  let booleans = 0;
  let integers = true;
  const distinct = new Set<string>();
  for (const cell of cells) {
    if (isMissing(cell)) {
      missing++;
      continue;
    }
    const n = numberOf(cell);
    if (n !== null) {
      numbers++;
      if (!Number.isInteger(n)) integers = false;
    } else if (booleanOf(cell) !== null) booleans++;
    if (distinct.size <= DISTINCT_CAP) distinct.add(textOf(cell));
  }
  const present = cells.length - missing;
  const type: ColumnType =
    present > 0 && booleans === present
      ? 'boolean'
      : present > 0 && numbers >= NUMBER_SHARE * present
        ? 'number'
        : distinct.size <= Math.max(CATEGORY_MAX, 0) && distinct.size < Math.max(2, present)
          ? 'category'
          : 'text';
  return { name, type, missing, distinct: distinct.size, integers: type === 'number' && integers };
}

/** Every column's type and counts. */
export function describeColumns(table: RawTable): ColumnInfo[] {
  return table.names.map((_, c) => describeColumn(table, c));
}
