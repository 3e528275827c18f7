import { describe, expect, it } from 'vitest';
import { parquetWriteBuffer } from 'hyparquet-writer';
import Papa from 'papaparse';
import { describeColumns } from './columns';
import { readTable } from './read-table';
import { cellAt, type Cell, type RawTable } from './table';
import { FlowbenchError } from '../errors';

const bytes = (text: string) => new TextEncoder().encode(text);
const read = (text: string, file = 'a.csv') => readTable(bytes(text), file);
/** Column `c` of `t`, a cell per data row. */
const columnOf = (t: RawTable, c: number): Cell[] =>
  Array.from({ length: t.rowCount }, (_, r) => cellAt(t, r, c));

/** The catalogue error `promise` fails with. */
async function failure(promise: Promise<unknown>): Promise<FlowbenchError> {
  const error: unknown = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof FlowbenchError))
    throw new Error(`expected a FlowbenchError, got ${String(error)}`);
  return error;
}

describe('reading CSV and TSV', () => {
  it('keeps a delimiter and a newline inside quotes in one field', async () => {
    const t = await read('name,note,x\n"Smith, J","line one\nline two",1\nLee,plain,2\n');
    expect(t.names).toEqual(['name', 'note', 'x']);
    expect(t.rowCount).toBe(2);
    expect(columnOf(t, 0)).toEqual(['Smith, J', 'Lee']);
    expect(columnOf(t, 1)).toEqual(['line one\nline two', 'plain']);
  });

  it('drops a byte-order mark and reads CRLF lines', async () => {
    const t = await read('\ufeffa,b\r\n1,2\r\n3,4\r\n');
    expect(t.names).toEqual(['a', 'b']);
    expect(columnOf(t, 1)).toEqual(['2', '4']);
  });

  it('detects semicolons and tabs, and reads .tsv as tab-separated', async () => {
    expect((await read('a;b\n1;2\n')).names).toEqual(['a', 'b']);
    const tsv = await read('a\tb,c\n1\t2,5\n', 'a.tsv');
    expect(tsv.format).toBe('tsv');
    expect(tsv.names).toEqual(['a', 'b,c']);
  });

  it('tells a header from a first row of data', async () => {
    expect((await read('1,2\n3,4\n')).names).toEqual(['column 1', 'column 2']);
    expect((await read('x,y\n1,2\n')).names).toEqual(['x', 'y']);
    const noHeader = await readTable(bytes('x,y\n1,2\n'), 'a.csv', 'no');
    expect(noHeader.rowCount).toBe(2);
  });

  it('counts missing values and types mixed columns', async () => {
    const t = await read(
      'n,flag,kind,word\n1,true,a,alpha\n,false,b,beta\nNA,TRUE,a,gamma\n4,false,,delta\n',
    );
    const cols = describeColumns(t);
    expect(cols.map((c) => [c.name, c.type, c.missing])).toEqual([
      ['n', 'number', 2],
      ['flag', 'boolean', 0],
      ['kind', 'category', 1],
      ['word', 'text', 0],
    ]);
  });

  it('reads very large and very small numbers as numbers', async () => {
    const t = await read('x,y\n1e300,-2.5e-30\n1.7976931348623157e308,5e-324\n');
    expect(describeColumns(t).map((c) => c.type)).toEqual(['number', 'number']);
  });

  it('names the line of a row with too many fields', async () => {
    const e = await failure(read('a,b\n1,2\n"x\ny",3\n4,5,6\n'));
    expect(e.code).toBe('table-unparseable');
    expect(e.message).toMatch(/^a\.csv, line 5: 3 fields where the header names 2/);
  });

  it('names the line and column of a quote that is never closed', async () => {
    const e = await failure(read('a,b\n1,2\n3,"open\n'));
    expect(e.code).toBe('table-unparseable');
    expect(e.message).toMatch(/^a\.csv, line 3, column 3: a quoted field is never closed/);
  });

  it('names the place of a quoted field that goes on after its closing quote', async () => {
    const e = await failure(read('a,b\n1,2\n"x"y,3\n'));
    expect(e.message).toMatch(/^a\.csv, line 3, column 1: a quoted field goes on/);
  });

  it('refuses an empty file and a header with no rows', async () => {
    expect((await failure(read(''))).code).toBe('table-empty');
    expect((await failure(read('\n\n'))).code).toBe('table-empty');
    expect((await failure(read('a,b\n'))).message).toBe('a.csv has no rows of data');
  });
});

describe('reading CSV row for row as papaparse does', () => {
  /** Papaparse's own rows with the settings a table is read with, blank lines skipped by it. */
  const papaRows = (text: string) =>
    Papa.parse<string[]>(text, {
      delimiter: '',
      delimitersToGuess: [',', '\t', ';', '|'],
      skipEmptyLines: 'greedy',
      header: false,
      dynamicTyping: false,
    }).data;
  const rowsOf = (t: Awaited<ReturnType<typeof read>>) =>
    Array.from({ length: t.rowCount }, (_, r) => t.names.map((_, c) => cellAt(t, r, c)));

  it('skips blank and blank-looking lines wherever they are', async () => {
    const text = '\n  \na;b\n1;2\n\n \t ; \n3;4\n\n';
    const t = await readTable(bytes(text), 'a.csv', 'no');
    expect(rowsOf(t)).toEqual(papaRows(text));
    expect(rowsOf(t)).toEqual([
      ['a', 'b'],
      ['1', '2'],
      ['3', '4'],
    ]);
  });

  it('guesses the delimiter of a file with blank lines among its first rows', async () => {
    // Counted as rows, the blank lines would make the comma look as steady as the semicolon.
    const text = `x;y,z\n\n\n\n1;2,5\n \n3;4,6\n${'7;8\n'.repeat(20)}`;
    const t = await read(text);
    expect(t.names).toEqual(['x', 'y,z']);
    expect(rowsOf(t)).toEqual(papaRows(text).slice(1));
  });

  it('reads a file past a megabyte with and without quotes', async () => {
    const plain = `a|b\n${Array.from({ length: 120_000 }, (_, i) => `${i}|v${i % 7}`).join('\n')}\n`;
    expect(plain.length).toBeGreaterThan(1024 * 1024);
    const t = await read(plain);
    expect(t.names).toEqual(['a', 'b']);
    expect(rowsOf(t)).toEqual(papaRows(plain).slice(1));
    const quoted = plain.replace('0|v0', '"0"|"v,0"');
    expect(rowsOf(await read(quoted))).toEqual(papaRows(quoted).slice(1));
  });

  it('guesses the delimiter of a file whose first megabyte holds few lines', async () => {
    const long = 'x'.repeat(200_000);
    // Cut at 1 MB, the sixth row would lose its comma: the start alone would guess wrong.
    const text = `${Array.from({ length: 8 }, (_, i) => `${i};${long},${i}`).join('\n')}\n`;
    expect(text.length).toBeGreaterThan(1024 * 1024);
    const t = await readTable(bytes(text), 'a.csv', 'no');
    expect(t.names).toHaveLength(papaRows(text)[0]!.length);
    expect(rowsOf(t)).toEqual(papaRows(text));
  });

  it('names the line of a row with too many fields after blank lines', async () => {
    const e = await failure(read('a,b\n\n1,2\n  \n"x\ny",3\n\n4,5,6\n'));
    expect(e.message).toMatch(/^a\.csv, line 8: 3 fields where the header names 2/);
  });
});

describe('reading JSON', () => {
  it('reads an array of objects, keys in the order first seen', async () => {
    const t = await read('[{"a":1,"b":"x"},{"b":"y","c":true}]', 'a.json');
    expect(t.names).toEqual(['a', 'b', 'c']);
    expect(columnOf(t, 0)).toEqual([1, null]);
    expect(columnOf(t, 2)).toEqual([null, true]);
  });

  it('reads an array of arrays with a header row', async () => {
    const t = await read('[["x","y"],[1,2],[3,null]]', 'a.json');
    expect(t.names).toEqual(['x', 'y']);
    expect(columnOf(t, 1)).toEqual([2, null]);
  });

  it('reads a JSON array of 200,000 rows', async () => {
    // More rows than a function call takes arguments.
    const rows = JSON.stringify(Array.from({ length: 200_000 }, (_, i) => [i, i % 3]));
    const t = await read(rows, 'a.json');
    expect(t.rowCount).toBe(200_000);
  });

  it('reads JSON Lines, skipping blank lines', async () => {
    const t = await read('{"a":1}\n\n{"a":2}\r\n', 'a.jsonl');
    expect(t.format).toBe('jsonl');
    expect(columnOf(t, 0)).toEqual([1, 2]);
  });

  it('names the line of a JSON Lines row that is not JSON', async () => {
    const e = await failure(read('{"a":1}\n{"a":2}\n{"a":}\n', 'a.jsonl'));
    expect(e.code).toBe('table-unparseable');
    expect(e.message).toMatch(/^a\.jsonl, line 3/);
  });

  it('names the line of a syntax error in a JSON array', async () => {
    const e = await failure(read('[\n{"a":1},\n{"a" 2}\n]', 'a.json'));
    expect(e.message).toMatch(/^a\.json, line 3, column \d+: not valid JSON/);
  });
});

describe('reading Parquet', () => {
  it('reads columns with nulls as missing values', async () => {
    const buffer = parquetWriteBuffer({
      columnData: [
        { name: 'x', data: [1.5, null, 3.5], type: 'DOUBLE' },
        { name: 'n', data: [1n, 2n, null], type: 'INT64' },
        { name: 'kind', data: ['a', null, 'b'], type: 'STRING' },
      ],
    });
    const t = await readTable(new Uint8Array(buffer), 'a.parquet');
    expect(t.format).toBe('parquet');
    expect(t.names).toEqual(['x', 'n', 'kind']);
    expect(columnOf(t, 0)).toEqual([1.5, null, 3.5]);
    expect(columnOf(t, 1)).toEqual([1, 2, null]);
    expect(describeColumns(t).map((c) => c.missing)).toEqual([1, 1, 1]);
  });

  it('refuses a file with the magic but no readable content, naming it', async () => {
    const fake = bytes('PAR1 not really parquet PAR1');
    const e = await failure(readTable(fake, 'b.parquet'));
    expect(e.code).toBe('table-unparseable');
    expect(e.message).toMatch(/^b\.parquet, line 1: not a Parquet file/);
  });
});

describe('reading numbers', () => {
  it('reads plain decimals exactly as Number() does, and leaves the rest to it', async () => {
    const { numberOf } = await import('./table');
    const texts = ['0', '-0', '12', '-12.3456', '+7.5', '0.1', '123456789012345', '1.', '.5'];
    for (const t of texts) expect(Object.is(numberOf(t), Number(t)), t).toBe(true);
    expect(numberOf('1234567890123456789')).toBe(Number('1234567890123456789'));
    expect(numberOf('1e-30')).toBe(1e-30);
    expect(numberOf('1.2.3')).toBeNull();
    expect(numberOf('-')).toBeNull();
    expect(numberOf(' ')).toBeNull();
    expect(numberOf(' 4 ')).toBe(4);
  });
});
