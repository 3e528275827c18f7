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
 *
 * Blank lines are dropped here, not by papaparse: its 'greedy' skip joins
 * every row into a new string to test it, about a fifth of the parse of a
 * large file, where a row whose first cell starts with a visible character
 * is known not blank at one glance. The delimiter and line break are still
 * papaparse's own guess with the 'greedy' setting, made first on the
 * file's start (all papaparse looks at) and then given to the full parse.
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

/** How much of a file papaparse reads to guess its line break (1 MB); the delimiter needs 10 rows. */
const GUESS_CHARS = 1024 * 1024;
const GUESS_ROWS = 10;

/** What papaparse guesses of a file, given back to it for the full parse. */
interface Layout {
  readonly delimiter: string;
  readonly newline: '\n' | '\r' | '\r\n';
}

/**
 * The delimiter and line break papaparse would take for `text` under
 * `config`. Papaparse guesses them from the first 1 MB and the first 10
 * rows, but a file without quotes is split whole on every delimiter it
 * tries; its start alone gives the same guess when it holds those 10 rows.
 */
function guessLayout(text: string, config: Papa.ParseConfig): Layout {
  const guess = (sample: string): Layout => {
    const { meta } = Papa.parse<string[]>(sample, { ...config, preview: 1 });
    // papaparse reads any other line break as "\n" too.
    const newline = meta.linebreak === '\r\n' || meta.linebreak === '\r' ? meta.linebreak : '\n';
    return { delimiter: meta.delimiter, newline };
  };
  if (text.length <= GUESS_CHARS || text.includes('"')) return guess(text);
  const start = guess(text.slice(0, GUESS_CHARS));
  // Without quotes a row ends at each line break: past the 10th, the rows it reads are whole.
  let breaks = 0;
  let at = text.indexOf(start.newline);
  while (at !== -1 && at + start.newline.length <= GUESS_CHARS) {
    if (++breaks > GUESS_ROWS) return start;
    at = text.indexOf(start.newline, at + start.newline.length);
  }
  return guess(text);
}

/** Whether a row holds nothing but blanks: papaparse's 'greedy' test, without joining the row. */
function isBlankRow(row: readonly string[]): boolean {
  const first = row[0]!.charCodeAt(0);
  if (first > 32 && first < 127) return false;
  for (const field of row) if (field.trim() !== '') return false;
  return true;
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
  const layout = guessLayout(text, config);
  const parsed = Papa.parse<string[]>(text, { ...config, ...layout, skipEmptyLines: false });
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
  let firstAt = 0;
  while (firstAt < rows.length && isBlankRow(rows[firstAt]!)) firstAt++;
  const first = rows[firstAt];
  if (first === undefined) throw new FlowbenchError('table-empty', { file: options.file });
  let header = options.header === 'yes';
  if (options.header === 'auto') {
    const below: string[][] = [];
    for (let r = firstAt + 1; r < rows.length && below.length < SNIFF_ROWS; r++)
      if (!isBlankRow(rows[r]!)) below.push(rows[r]!);
    header = looksLikeHeader(first, below);
  }
  const names = header ? uniqueNames(first) : defaultNames(first.length);
  const width = names.length;
  const delimiter = parsed.meta.delimiter === '\t' ? 'tab' : `'${parsed.meta.delimiter}'`;
  // papaparse's own rows, the blank ones left out: no copy of a cell.
  const body: string[][] = [];
  for (let r = header ? firstAt + 1 : firstAt; r < rows.length; r++) {
    const row = rows[r]!;
    if (isBlankRow(row)) continue;
    if (row.length !== width) {
      const fields = row.length;
      // Which row it is among the rows kept, the header counted: what the step-by-step pass counts.
      const line = lineOfRow(
        text,
        { ...config, delimiter: parsed.meta.delimiter },
        header ? body.length + 1 : body.length,
      );
      throw new FlowbenchError('table-unparseable', {
        file: options.file,
        line,
        column: null,
        problem: `${fields} field${fields === 1 ? '' : 's'} where the ${header ? 'header names' : 'first row has'} ${width} (fields split at ${delimiter}; quote a field that holds one)`,
      });
    }
    body.push(row);
  }
  if (body.length === 0) throw new FlowbenchError('table-empty', { file: options.file });
  return tableFromRows(
    format === 'tsv' || parsed.meta.delimiter === '\t' ? 'tsv' : 'csv',
    names,
    body,
  );
}
