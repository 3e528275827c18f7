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
import {
  booleanOf,
  isMissing,
  numberOf,
  readPlainDecimal,
  textOf,
  type Cell,
  type RawTable,
} from './table';

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

/** What a scan has counted of one column so far. */
class ColumnTally {
  readonly missingCells: Uint8Array;
  /** Made at the first number: a column of words never pays for it. */
  values: Float32Array | null = null;
  missing = 0;
  numbers = 0;
  booleans = 0;
  integers = true;
  readonly distinct = new Set<string>();
  /** Past CATEGORY_MAX + 1 values the count decides nothing more; stop paying for it. */
  counting = true;

  constructor(
    readonly name: string,
    readonly count: number,
  ) {
    this.missingCells = new Uint8Array(count);
  }

  /** Row `r`'s value, a number or a yes/no as 1/0. */
  value(r: number, value: number): void {
    (this.values ??= new Float32Array(this.count).fill(Number.NaN))[r] = value;
  }

  /** Any cell but a plain decimal (see `scanColumns` for those). */
  add(cell: Cell, r: number): void {
    if (isMissing(cell)) {
      this.missing++;
      this.missingCells[r] = 1;
      return;
    }
    const n = numberOf(cell);
    if (n !== null) this.number(r, n);
    else {
      const b = booleanOf(cell);
      if (b !== null) {
        this.booleans++;
        this.value(r, Number(b));
      }
    }
    this.text(textOf(cell));
  }

  /** Row `r` holds the number `n`. */
  number(r: number, n: number): void {
    this.numbers++;
    this.value(r, n);
    if (this.integers && !Number.isInteger(n)) this.integers = false;
  }

  /** A present cell's trimmed text, counted towards the column's distinct values. */
  text(text: string): void {
    if (this.counting) this.counting = this.distinct.add(text).size <= CATEGORY_MAX;
  }

  scan(): ColumnScan {
    const { distinct, missing, numbers, booleans } = this;
    const present = this.count - missing;
    const type: ColumnType =
      present > 0 && booleans === present
        ? 'boolean'
        : present > 0 && numbers >= NUMBER_SHARE * present
          ? 'number'
          : distinct.size <= CATEGORY_MAX && distinct.size < Math.max(2, present)
            ? 'category'
            : 'text';
    const info = {
      name: this.name,
      type,
      missing,
      distinct: distinct.size,
      integers: type === 'number' && this.integers,
    };
    return { info, missing: this.missingCells, numbers: this.values };
  }
}

/**
 * The type, counts and per-cell values of every column, in one pass over
 * the rows: each row is read once, cell after cell, where a pass per column
 * would go through every row again for each column.
 */
export function scanColumns(table: RawTable): ColumnScan[] {
  const { rows, rowCount } = table;
  const tallies = table.names.map((name) => new ColumnTally(name, rowCount));
  const parsed = new Float64Array(1);
  for (let r = 0; r < rowCount; r++) {
    const row = rows[r]!;
    for (let c = 0; c < tallies.length; c++) {
      const cell = row[c] ?? null;
      const tally = tallies[c]!;
      // The common cell first: a plain decimal is present, a number, and its own trimmed text.
      if (typeof cell === 'string' && readPlainDecimal(cell, parsed)) {
        tally.number(r, parsed[0]!);
        tally.text(cell);
      } else tally.add(cell, r);
    }
  }
  return tallies.map((tally) => tally.scan());
}

/** Every column's type and counts. */
export function describeColumns(table: RawTable): ColumnInfo[] {
  return scanColumns(table).map((scan) => scan.info);
}
