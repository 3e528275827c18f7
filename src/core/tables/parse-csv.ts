/**
 * CSV and TSV through papaparse: a well-kept parser that handles quoting
 * (delimiters and newlines inside quotes, doubled quotes), CRLF and LF, and
 * detects the delimiter. Flowbench adds what it does not do the way a person
 * needs: whether the first row is a header, a row with the wrong number of
 * fields as an error naming its line, and line and column on every error.
 *
 * Trade-off: the whole text is parsed at once (papaparse's fastest path);
 * the line of a faulty row is found by a second, step-by-step pass that
 * runs only when there is a fault, so a good file pays nothing for it.
 */
import Papa from 'papaparse';
import { FlowbenchError } from '../errors';
import {
  defaultNames,
  numberOf,
  positionOf,
  tableFromRows,
  uniqueNames,
  type RawTable,
} from './table';

/** Whether the first row names the columns: decided from the data, or said by the person. */
export type HeaderChoice = 'auto' | 'yes' | 'no';

export interface CsvOptions {
  /** The file's name, for messages. */
  readonly file: string;
  /** `'\t'` for TSV; `undefined` detects it (comma, tab, semicolon, pipe). */
  readonly delimiter?: string;
  readonly header: HeaderChoice;
}

/** How many rows past the first the header guess looks at. */
const SNIFF_ROWS = 50;

/**
 * Whether `first` looks like a header over the rows below it: every name
 * present, none a number, no two alike, and some column whose values below
 * are numbers (or where the name never comes again).
 */
export function looksLikeHeader(
  first: readonly string[],
  below: readonly (readonly string[])[],
): boolean {
  if (first.length === 0) return false;
  if (first.some((name) => name.trim() === '' || numberOf(name) !== null)) return false;
  if (new Set(first.map((n) => n.trim())).size !== first.length) return false;
  if (below.length === 0) return true;
  return first.some((name, c) => {
    const values = below.map((row) => row[c] ?? '').filter((v) => v.trim() !== '');
    if (values.length === 0) return false;
    return (
      values.every((v) => numberOf(v) !== null) || !values.some((v) => v.trim() === name.trim())
    );
  });
}

/** The data rows' index → the line (from 1) each starts on, by a step-by-step pass (errors only). */
function lineOfRow(text: string, config: Papa.ParseConfig, wanted: number): number {
  let row = 0;
  let start = 0;
  let found = -1;
  Papa.parse<string[]>(text, {
    ...config,
    step(results, parser) {
      if (row === wanted) {
        found = start;
        parser.abort();
        return;
      }
      start = results.meta.cursor;
      row++;
    },
  });
  if (found === -1) found = start;
  while (found < text.length && (text[found] === '\n' || text[found] === '\r')) found++;
  return positionOf(text, found).line;
}

/** Parses CSV/TSV text into a table; throws `table-unparseable` or `table-empty` naming the place. */
export function parseCsv(text: string, options: CsvOptions): RawTable {
  const config: Papa.ParseConfig = {
    delimiter: options.delimiter ?? '',
    delimitersToGuess: [',', '\t', ';', '|'],
    skipEmptyLines: 'greedy',
    header: false,
    dynamicTyping: false,
  };
  const format = options.delimiter === '\t' ? 'tsv' : 'csv';
  const parsed = Papa.parse<string[]>(text, config);
  const quoting = parsed.errors.find((e) => e.type === 'Quotes');
  if (quoting) {
    // papaparse points one past the opening quote of the faulty field.
    const at = positionOf(text, Math.max(0, (quoting.index ?? 1) - 1));
    const problem =
      quoting.code === 'MissingQuotes'
        ? 'a quoted field is never closed (a " without its closing ")'
        : 'a quoted field goes on after its closing " (write a " inside quotes as "")';
    throw new FlowbenchError('table-unparseable', { file: options.file, ...at, problem });
  }
  const rows = parsed.data;
  const first = rows[0];
  if (first === undefined) throw new FlowbenchError('table-empty', { file: options.file });
  const header =
    options.header === 'auto'
      ? looksLikeHeader(first, rows.slice(1, 1 + SNIFF_ROWS))
      : options.header === 'yes';
  const names = header ? uniqueNames(first) : defaultNames(first.length);
  const body = header ? rows.slice(1) : rows;
  if (body.length === 0) throw new FlowbenchError('table-empty', { file: options.file });
  const width = names.length;
  const delimiter = parsed.meta.delimiter === '\t' ? 'tab' : `'${parsed.meta.delimiter}'`;
  for (let r = 0; r < body.length; r++) {
    const fields = body[r]!.length;
    if (fields === width) continue;
    const line = lineOfRow(
      text,
      { ...config, delimiter: parsed.meta.delimiter },
      header ? r + 1 : r,
    );
    throw new FlowbenchError('table-unparseable', {
      file: options.file,
      line,
      column: null,
      problem: `${fields} field${fields === 1 ? '' : 's'} where the ${header ? 'header names' : 'first row has'} ${width} (fields split at ${delimiter}; quote a field that holds one)`,
    });
  }
  return tableFromRows(
    format === 'tsv' || parsed.meta.delimiter === '\t' ? 'tsv' : 'csv',
    names,
    body,
  );
}
