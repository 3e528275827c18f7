/**
 * Parsing a table: rows per second through the `data.table` node (decode,
 * parse, type the columns, build the dataset's features and labels) beside
 * the bare parser on the same bytes (papaparse set to give the same rows:
 * delimiter guessed, blank lines skipped 'greedy'), alternating trials in one
 * process. The node does more than the parser —
 * typing and one Float32Array of features — and the target is that this
 * costs at most a fifth of the parser's speed.
 */
import Papa from 'papaparse';
import { compareRow, noTarget, ratioAtLeast, type BenchRow } from '../lib/rows';
import { alternate } from '../lib/stats';
import { createRandom } from '../../src/core/random';
import { dataTable } from '../../src/core/nodes/data-table';
import { executeKind } from '../../src/core/nodes/testing';

const ROWS = 200_000;
const NUMERIC = 19;

/** A CSV of `ROWS` rows: 19 numeric columns and a category label (the in-app table row's file too). */
export function makeCsv(): Uint8Array {
  const random = createRandom(1);
  const header = [...Array.from({ length: NUMERIC }, (_, i) => `x${i}`), 'kind'].join(',');
  const lines = [header];
  for (let r = 0; r < ROWS; r++) {
    const cells = Array.from({ length: NUMERIC }, () => (random() * 200 - 100).toFixed(4));
    cells.push(random() < 0.5 ? 'left' : 'right');
    lines.push(cells.join(','));
  }
  return new TextEncoder().encode(`${lines.join('\n')}\n`);
}

const gc = (globalThis as { gc?: () => void }).gc;

export async function run(): Promise<BenchRow[]> {
  console.error(`[tables] ${ROWS} rows × ${NUMERIC + 1} columns…`);
  const bytes = makeCsv();
  const file = {
    digest: `sha256:${'0'.repeat(64)}`,
    name: 'bench.csv',
    mediaType: 'text/csv',
    bytes,
  };
  const viaNode = async () => {
    const start = performance.now();
    await executeKind(dataTable, { params: { file: file.digest }, files: [file] });
    return ROWS / ((performance.now() - start) / 1000);
  };
  const viaParser = () => {
    const start = performance.now();
    const text = new TextDecoder('utf-8').decode(bytes);
    Papa.parse<string[]>(text, {
      delimiter: '',
      delimitersToGuess: [',', '\t', ';', '|'],
      skipEmptyLines: 'greedy',
      header: false,
      dynamicTyping: false,
    });
    return Promise.resolve(ROWS / ((performance.now() - start) / 1000));
  };
  // Papaparse as the node itself calls it for this file: the delimiter and line break given (the
  // node guesses them from the file's start), no blank-line skipping (the node drops blank rows
  // itself, without papaparse's 'greedy' join of every row). Beside the row above: how much of
  // the node's time past the parser is typing and features, and how much it saves in the parse.
  const viaNodesCall = () => {
    const start = performance.now();
    const text = new TextDecoder('utf-8').decode(bytes);
    Papa.parse<string[]>(text, {
      delimiter: ',',
      newline: '\n',
      skipEmptyLines: false,
      header: false,
      dynamicTyping: false,
    });
    return Promise.resolve(ROWS / ((performance.now() - start) / 1000));
  };
  await viaNode();
  await viaParser();
  await viaNodesCall();
  const trials = { minTrials: 3, maxTrials: 7, budgetMs: 40_000, before: () => gc?.() };
  const { a, b } = await alternate({ a: viaNode, b: viaParser, ...trials });
  const past = await alternate({ a: viaNode, b: viaNodesCall, ...trials });
  const row = compareRow({
    name: `tables: parse ${ROWS / 1000}k rows × ${NUMERIC + 1} cols`,
    unit: 'rows/s',
    lowerIsBetter: false,
    ours: a,
    reference: b,
    target: ratioAtLeast(0.8),
  });
  row.note = `data.table node (decode, parse, type, features) vs bare papaparse on the same ${(bytes.byteLength / 1e6).toFixed(0)} MB CSV`;
  const pastRow = compareRow({
    name: `tables: parse ${ROWS / 1000}k rows × ${NUMERIC + 1} cols vs papaparse as the node calls it`,
    unit: 'rows/s',
    lowerIsBetter: false,
    ours: past.a,
    reference: past.b,
    target: noTarget,
  });
  pastRow.note =
    "the node against papaparse given the node's own delimiter and line break, blank lines not skipped: the node's typing and features against the parse alone";
  return [row, pastRow];
}
