import { describe, expect, it } from 'vitest';
import { readTable } from './read-table';
import { tableToDataset, type TableChoices } from './table-dataset';

/**
 * The exact dataset small tricky tables make — quotes, CRLF, padded cells,
 * missing words, `-0`, `1.`, hex, exponents, a digit string past 2^53 —
 * pinned value for value (`-0` included), so that a faster reading of the
 * cells cannot change a single feature or label.
 */
const trickyCsv = [
  'id,"size, cm",flag,colour,score,note,kind',
  '1,  4 ,true,red,1e3,"a ""quoted"" note",left',
  '2,-0,FALSE, blue ,+7.5,"two\nlines",right',
  '3,NA,true,red,.5,plain,left',
  '4,1.,false,,-12.3456,x,right',
  '5,0x10,TRUE,green,?,y,left',
  '6,1234567890123456789,false,red,0.1,z, right',
  '7,n/a,true,blue,3,w,left',
  '8,2.5e-3,false,red,null,v,right',
].join('\r\n');

const trickyJson = JSON.stringify([
  { x: 1.5, b: true, s: '2', c: 'u', y: 1 },
  { x: null, b: false, s: ' 3.25 ', c: 'v', y: 2 },
  { x: -0, b: true, s: 'NaN', c: 'u', y: 1 },
  { x: 1e-7, b: null, s: '7', c: null, y: 2 },
  { x: 4, b: false, s: '-1', c: 'v', y: 1 },
]);

const defaults: TableChoices = {
  file: 'tricky',
  label: '',
  features: '',
  task: 'auto',
  missing: 'drop rows',
  standardise: true,
};

async function made(text: string, file: string, choices: Partial<TableChoices> = {}) {
  const table = await readTable(new TextEncoder().encode(text), file);
  return tableToDataset(table, { ...defaults, file, ...choices });
}

describe('the dataset a table makes', () => {
  it('types the columns of a tricky CSV', async () => {
    const { columns, label, task, droppedRows } = await made(trickyCsv, 'tricky.csv');
    expect(columns.map((c) => [c.name, c.type, c.missing, c.distinct, c.integers])).toEqual([
      ['id', 'number', 0, 8, true],
      ['size, cm', 'number', 2, 6, false],
      ['flag', 'boolean', 0, 4, false],
      ['colour', 'category', 1, 3, false],
      ['score', 'number', 2, 6, false],
      ['note', 'text', 0, 8, false],
      ['kind', 'category', 0, 2, false],
    ]);
    expect([label, task, droppedRows]).toEqual(['kind', 'classification', 5]);
  });

  it('keeps the rows with every value of a tricky CSV, exactly', async () => {
    const { dataset } = await made(trickyCsv, 'tricky.csv');
    expect(dataset.featureNames).toEqual([
      'id',
      'size, cm',
      'flag',
      'colour=blue',
      'colour=red',
      'score',
    ]);
    expect(dataset.standardisation).toEqual({ state: 'pending', columns: [0, 1, 2, 5] });
    expect(Array.from(dataset.features)).toEqual([
      1, 4, 1, 0, 1, 1000, 2, -0, 0, 1, 0, 7.5, 6, 1234567939550609400, 0, 0, 1,
      0.10000000149011612,
    ]);
    expect(Array.from(dataset.labels)).toEqual([0, 1, 1]);
    expect(dataset.classNames).toEqual(['left', 'right']);
  });

  it('fills in a tricky CSV’s means and category shares, exactly', async () => {
    const { dataset } = await made(trickyCsv, 'tricky.csv', {
      missing: 'mean',
      standardise: false,
    });
    expect(dataset.featureNames).toEqual([
      'id',
      'size, cm',
      'flag',
      'colour=blue',
      'colour=green',
      'colour=red',
      'score',
    ]);
    expect(dataset.standardisation).toBeUndefined();
    expect(Array.from(dataset.features)).toEqual([
      1, 4, 1, 0, 0, 1, 1000, 2, -0, 0, 1, 0, 0, 7.5, 3, 205761317531811840, 1, 0, 0, 1, 0.5, 4, 1,
      0, 0.2857142984867096, 0.1428571492433548, 0.5714285969734192, -12.345600128173828, 5, 16, 1,
      0, 1, 0, 166.4590606689453, 6, 1234567939550609400, 0, 0, 0, 1, 0.10000000149011612, 7,
      205761317531811840, 1, 1, 0, 0, 3, 8, 0.0024999999441206455, 0, 0, 0, 1, 166.4590606689453,
    ]);
    expect(Array.from(dataset.labels)).toEqual([0, 1, 0, 1, 0, 1, 0, 1]);
  });

  it('makes regression targets of a tricky CSV’s numbers, exactly', async () => {
    const { dataset, droppedRows } = await made(trickyCsv, 'tricky.csv', {
      label: 'score',
      missing: 'mean',
    });
    expect(droppedRows).toBe(2);
    expect(dataset.featureNames).toEqual([
      'id',
      'size, cm',
      'flag',
      'colour=blue',
      'colour=red',
      'kind=left',
      'kind=right',
    ]);
    expect(Array.from(dataset.features)).toEqual([
      1, 4, 1, 0, 1, 1, 0, 2, -0, 0, 1, 0, 0, 1, 3, 308641984887652350, 1, 0, 1, 1, 0, 4, 1, 0,
      0.4000000059604645, 0.6000000238418579, 0, 1, 6, 1234567939550609400, 0, 0, 1, 0, 1, 7,
      308641984887652350, 1, 1, 0, 1, 0,
    ]);
    expect(Array.from(dataset.targets!)).toEqual([
      1000, 7.5, 0.5, -12.345600128173828, 0.10000000149011612, 3,
    ]);
  });

  it('reads JSON numbers, yes/no, number texts and nulls, exactly', async () => {
    const dropped = await made(trickyJson, 'tricky.json');
    expect(dropped.columns.map((c) => [c.type, c.missing])).toEqual([
      ['number', 1],
      ['boolean', 1],
      ['number', 1],
      ['category', 1],
      ['number', 0],
    ]);
    expect(dropped.dataset.featureNames).toEqual(['x', 'b', 's', 'y']);
    expect(Array.from(dropped.dataset.features)).toEqual([1.5, 1, 2, 1, 4, 0, -1, 1]);
    const filled = await made(trickyJson, 'tricky.json', { missing: 'mean', standardise: false });
    expect(Array.from(filled.dataset.features)).toEqual([
      1.5, 1, 2, 1, 1.8333333730697632, 0, 3.25, 2, 0, 1, 1.4166666269302368, 1, 4, 0, -1, 1,
    ]);
    expect(Array.from(filled.dataset.labels)).toEqual([0, 1, 0, 1]);
  });

  it('names the first bad cell of the first feature with one, in feature order', async () => {
    const rows = Array.from({ length: 30 }, (_, i) => [i, i * 2, i % 2 ? 'a' : 'b']);
    rows[2]![1] = 'two';
    rows[9]![0] = 'nine';
    rows[20]![0] = 'twenty';
    const text = ['x,y,k', ...rows.map((r) => r.join(','))].join('\n');
    const error = await made(text, 'bad.csv').then(
      () => null,
      (e: unknown) => e,
    );
    expect(String(error)).toContain('bad.csv, row 10, column \'x\': "nine" is not a number');
    const swapped = await made(text, 'bad.csv', { features: 'y,x' }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(String(swapped)).toContain('bad.csv, row 3, column \'y\': "two" is not a number');
  });
});
