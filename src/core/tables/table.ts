/**
 * A table as read from a file, before any typing: named columns and rows of
 * raw cells, the same for every format. Parsers stop here, so that column
 * typing, missing values and the dataset a node makes are one code path
 * whatever the file was (CSV, JSON, Parquet). The cells stay in the rows the
 * parser made: copying 200,000 rows of 20 cells into columns cost about a
 * fifth of the parse, for readers that go through every row once anyway.
 * Trade-off: rows of cells cost more memory than typed arrays would; a
 * table a person brings to a browser workbench fits, and it is dropped once
 * the dataset is built.
 */

/** One cell as the file gave it: text (CSV), or JSON/Parquet's own types; `null` when absent. */
export type Cell = string | number | boolean | null;

/** The formats a table file may be in. */
export const tableFormats = ['csv', 'tsv', 'json', 'jsonl', 'parquet'] as const;
export type TableFormat = (typeof tableFormats)[number];

/** A parsed table: column names and its rows of cells. */
export interface RawTable {
  readonly format: TableFormat;
  readonly names: readonly string[];
  /**
   * `rows[r][c]`: data row `r` (from 0), column `c`, as the parser made it; a
   * row may end short of `names`, its missing cells `null` (see `cellAt`).
   */
  readonly rows: readonly (readonly Cell[])[];
  readonly rowCount: number;
}

/** The cell of `table` at data row `r`, column `c`; `null` past the end of a short row. */
export function cellAt(table: RawTable, r: number, c: number): Cell {
  return table.rows[r]![c] ?? null;
}

/** Texts read as a missing value (compared trimmed, case-insensitive), beside an empty cell. */
const missingWords = new Set(['', 'na', 'n/a', 'nan', 'null', 'none', '?']);
const MISSING_LONGEST = 4;

/** Whether a cell holds no value. */
export function isMissing(cell: Cell | undefined): boolean {
  if (cell === null || cell === undefined) return true;
  if (typeof cell === 'number') return Number.isNaN(cell);
  if (typeof cell !== 'string') return false;
  // Fast path, taken by nearly every cell: longer than any missing word and not padded.
  if (
    cell.length > MISSING_LONGEST &&
    cell.charCodeAt(0) > 32 &&
    cell.charCodeAt(cell.length - 1) > 32
  )
    return false;
  // Every missing word starts with n, N or ?: a short word like "left" needs no lookup either.
  const first = cell.charCodeAt(0);
  if (first > 32 && first < 127 && first !== 110 && first !== 78 && first !== 63) return false;
  return missingWords.has(cell.trim().toLowerCase());
}

/** A cell as a finite number, or `null` when it is not one (`"1e-30"` is; `"1,5"` and `"abc"` are not). */
export function numberOf(cell: Cell): number | null {
  if (typeof cell === 'number') return Number.isFinite(cell) ? cell : null;
  if (typeof cell === 'boolean') return null;
  if (cell === null) return null;
  if (readPlainDecimal(cell, scratch)) return scratch[0]!;
  // A letter first is never a finite number ("Infinity" is not finite): skip the general parse.
  const lower = cell.charCodeAt(0) | 32;
  if (lower >= 97 && lower <= 122) return null;
  // Number() skips surrounding whitespace itself, but reads a blank as 0.
  const value = Number(cell);
  if (!Number.isFinite(value)) return null;
  return value !== 0 || cell.trim() !== '' ? value : null;
}

/** Where `numberOf` has `readPlainDecimal` put its value. */
const scratch = new Float64Array(1);

/** Exact powers of ten, for the fast path below. */
const TENS = Array.from({ length: 23 }, (_, k) => 10 ** k);

/**
 * Whether `text` is a plain decimal (`-12.3456`: a sign, up to 15 digits,
 * one point), its value then written to `into[0]`; anything else is left to
 * `Number()`. Nearly every numeric cell of a table is one; reading it here
 * costs a fraction of a general parse. Exact: the digits make an integer
 * below 2^53 and the power of ten is exact, so the one division rounds
 * correctly (the fast path of every correct float parser). The value goes
 * into an array, not out as a return value, so a hot loop reading millions
 * of cells boxes none of them.
 */
export function readPlainDecimal(text: string, into: Float64Array): boolean {
  const n = text.length;
  if (n === 0 || n > 17) return false;
  let i = 0;
  const first = text.charCodeAt(0);
  if (first === 45 /* - */ || first === 43 /* + */) i = 1;
  const start = i;
  let mantissa = 0;
  let point = -1;
  for (; i < n; i++) {
    const c = text.charCodeAt(i);
    const digit = (c - 48) >>> 0;
    if (digit <= 9) mantissa = mantissa * 10 + digit;
    else if (c === 46 /* . */ && point < 0) point = i;
    else return false;
  }
  // Every character past the sign is a digit but the one point.
  const digits = n - start - (point < 0 ? 0 : 1);
  if (digits === 0 || digits > 15) return false;
  const decimals = point < 0 ? 0 : n - 1 - point;
  const value = decimals > 0 ? mantissa / TENS[decimals]! : mantissa;
  into[0] = first === 45 ? -value : value;
  return true;
}

/** A cell as a boolean, or `null` when it is not one (`true`/`false`, any case). */
export function booleanOf(cell: Cell): boolean | null {
  if (typeof cell === 'boolean') return cell;
  if (typeof cell !== 'string') return null;
  const text = cell.trim().toLowerCase();
  return text === 'true' ? true : text === 'false' ? false : null;
}

/** A cell as the text a category keeps (numbers as JavaScript writes them). */
export function textOf(cell: Cell): string {
  return typeof cell === 'string' ? cell.trim() : String(cell);
}

/** A table from rows of cells (the header already taken off), kept as they are. */
export function tableFromRows(
  format: TableFormat,
  names: readonly string[],
  rows: readonly (readonly Cell[])[],
): RawTable {
  return { format, names, rows, rowCount: rows.length };
}

/** Names for columns a file does not name: `column 1`, `column 2` … */
export function defaultNames(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `column ${i + 1}`);
}

/** Names made unique and non-empty: a blank one becomes `column N`, a repeat gets ` (2)`. */
export function uniqueNames(names: readonly string[]): string[] {
  const seen = new Set<string>();
  return names.map((raw, i) => {
    const base = raw.trim() === '' ? `column ${i + 1}` : raw.trim();
    let name = base;
    for (let k = 2; seen.has(name); k++) name = `${base} (${k})`;
    seen.add(name);
    return name;
  });
}

/** Line and column (both from 1) of character `offset` in `text`. */
export function positionOf(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}
