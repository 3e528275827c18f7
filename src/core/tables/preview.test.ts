import { describe, expect, it } from 'vitest';
import { previewTable } from './preview';
import { readTable } from './read-table';

describe('a table preview', () => {
  it('shows the first rows as text, a missing cell blank, with the columns and defaults', async () => {
    const text = 'x,kind,note\n1.5,a,NA\n,b, hi \n3,a,x\n4,b,y\n';
    const preview = previewTable(await readTable(new TextEncoder().encode(text), 'p.csv'), 3);
    expect(preview.rowCount).toBe(4);
    expect(preview.rows).toEqual([
      ['1.5', 'a', ''],
      ['', 'b', 'hi'],
      ['3', 'a', 'x'],
    ]);
    expect(preview.columns.map((c) => c.type)).toEqual(['number', 'category', 'text']);
    expect([preview.defaultLabel, preview.defaultFeatures]).toEqual(['kind', ['x']]);
  });

  it('shows a JSON row that lacks a cell with that cell blank', async () => {
    const text = '[["a","b","c"],[1,2,3],[4,5]]';
    const preview = previewTable(await readTable(new TextEncoder().encode(text), 'p.json'));
    expect(preview.rows).toEqual([
      ['1', '2', '3'],
      ['4', '5', ''],
    ]);
  });
});
