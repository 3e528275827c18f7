/**
 * JSON tables: an array of objects (the keys are the columns, in the order
 * first seen), an array of arrays (the first row names the columns when it
 * looks like a header), or JSON Lines (one object or array per line). The
 * browser's own `JSON.parse` reads them; a syntax error is turned into a
 * line and column, whether the engine reports a position or not.
 */
import { FlowbenchError } from '../errors';
import { looksLikeHeader, type HeaderChoice } from './parse-csv';
import {
  defaultNames,
  positionOf,
  tableFromRows,
  uniqueNames,
  type Cell,
  type RawTable,
  type TableFormat,
} from './table';

/** A JSON value as a cell: nested arrays and objects are kept as their JSON text. */
function cellOf(value: unknown): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return value;
  return JSON.stringify(value);
}

/** Line and column of a `JSON.parse` error, from the position in its message when it gives one. */
function syntaxError(file: string, text: string, error: unknown, lineOffset = 0): FlowbenchError {
  const message = error instanceof Error ? error.message : String(error);
  const position = /position (\d+)/.exec(message);
  const at = position ? positionOf(text, Number(position[1])) : { line: 1, column: null };
  const problem = `not valid JSON (${message.replace(/ in JSON at position \d+.*$/, '')})`;
  return new FlowbenchError('table-unparseable', {
    file,
    line: at.line + lineOffset,
    column: at.column,
    problem,
  });
}

/** Rows (objects or arrays) into a table. */
function tableOf(
  file: string,
  format: TableFormat,
  rows: readonly unknown[],
  header: HeaderChoice,
  lineOf: (row: number) => number,
): RawTable {
  if (rows.length === 0) throw new FlowbenchError('table-empty', { file });
  const first = rows[0];
  if (Array.isArray(first)) {
    const arrays = rows.map((row, r) => {
      if (!Array.isArray(row))
        throw new FlowbenchError('table-unparseable', {
          file,
          line: lineOf(r),
          column: null,
          problem: `row ${r + 1} is not an array like the first row`,
        });
      return row.map(cellOf);
    });
    const head = arrays[0]!;
    const asText = (row: readonly Cell[]) => row.map((c) => (c === null ? '' : String(c)));
    const named =
      header === 'yes' ||
      (header === 'auto' &&
        head.every((c) => typeof c === 'string') &&
        looksLikeHeader(asText(head), arrays.slice(1, 51).map(asText)));
    // A loop, not a spread: a file can hold more rows than a call takes arguments.
    const width = arrays.reduce((most, row) => Math.max(most, row.length), 0);
    const names = named ? uniqueNames(asText(head)) : defaultNames(width);
    const body = named ? arrays.slice(1) : arrays;
    if (body.length === 0) throw new FlowbenchError('table-empty', { file });
    return tableFromRows(format, names, body);
  }
  const names: string[] = [];
  const seen = new Map<string, number>();
  const objects = rows.map((row, r) => {
    if (typeof row !== 'object' || row === null || Array.isArray(row))
      throw new FlowbenchError('table-unparseable', {
        file,
        line: lineOf(r),
        column: null,
        problem: `row ${r + 1} is not an object like the first row`,
      });
    for (const key of Object.keys(row))
      if (!seen.has(key)) {
        seen.set(key, names.length);
        names.push(key);
      }
    return row as Record<string, unknown>;
  });
  const cells = objects.map((o) => names.map((name) => cellOf(o[name])));
  return tableFromRows(format, uniqueNames(names), cells);
}

/** Parses a JSON array or JSON Lines text into a table. */
export function parseJson(text: string, file: string, header: HeaderChoice): RawTable {
  const trimmed = text.trim();
  if (trimmed === '') throw new FlowbenchError('table-empty', { file });
  if (trimmed.startsWith('[')) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw syntaxError(file, text, error);
    }
    const rows = value as unknown[];
    // Where a row starts is unknown after JSON.parse; name the row instead of guessing a line.
    return tableOf(file, 'json', rows, header, () => 1);
  }
  return parseJsonLines(text, file, header);
}

/** JSON Lines: one row per non-blank line. */
function parseJsonLines(text: string, file: string, header: HeaderChoice): RawTable {
  const lines = text.split('\n');
  const rows: unknown[] = [];
  const lineOfRow: number[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/\r$/, '');
    if (line.trim() === '') continue;
    try {
      rows.push(JSON.parse(line));
    } catch (error) {
      throw syntaxError(file, line, error, i);
    }
    lineOfRow.push(i + 1);
  }
  return tableOf(file, 'jsonl', rows, header, (r) => lineOfRow[r] ?? 1);
}
