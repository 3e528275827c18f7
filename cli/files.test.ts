/**
 * The files a flow names by digest and no `--file` gives, found beside the
 * flow by their bytes: each of several, whichever order the folder lists
 * them in, and a clear refusal for one that is nowhere.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FlowDocument } from '../src/core/flow/document';
import { builtinCatalog } from '../src/core/nodes';
import { sha256Hex } from '../src/core/run/digest';
import { applyFiles } from './files';

const text = (s: string) => new TextEncoder().encode(s);

/** A flow of two tables, each naming its file by `digests`. */
function twoTables(digests: readonly [string, string]): FlowDocument {
  return {
    format: 'flowbench.flow/1',
    name: 'two-tables',
    inputs: [],
    outputs: [],
    nodes: digests.map((file, i) => ({
      id: `table${i}`,
      kind: 'data.table',
      params: { file, label: 'y' },
      position: { x: 0, y: i * 100 },
    })),
    edges: [],
  };
}

describe('files beside a flow', () => {
  it('are each found by their bytes, among others, for every file param that names one', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'flowbench-beside-'));
    const a = text('x,y\n1,0\n');
    const b = text('x,y\n2,1\n');
    writeFileSync(join(folder, 'notes.txt'), text('not a table'));
    writeFileSync(join(folder, 'b.csv'), b);
    writeFileSync(join(folder, 'a.csv'), a);
    const digests = [`sha256:${await sha256Hex(a)}`, `sha256:${await sha256Hex(b)}`] as const;
    const { files, beside } = await applyFiles(twoTables(digests), {}, [], builtinCatalog, {
      near: folder,
    });
    expect(files.map((f) => [f.name, f.digest])).toEqual([
      ['a.csv', digests[0]],
      ['b.csv', digests[1]],
    ]);
    expect(files.map((f) => [...f.bytes])).toEqual([[...a], [...b]]);
    expect(beside.map((f) => [f.at, f.path])).toEqual([
      ['table0.file', join(folder, 'a.csv')],
      ['table1.file', join(folder, 'b.csv')],
    ]);
  });

  it('refuse a flow whose file is not there, naming the param and how to give it', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'flowbench-beside-'));
    const a = text('x,y\n1,0\n');
    writeFileSync(join(folder, 'a.csv'), a);
    const missing = `sha256:${'0'.repeat(64)}`;
    const flow = twoTables([`sha256:${await sha256Hex(a)}`, missing]);
    await expect(applyFiles(flow, {}, [], builtinCatalog, { near: folder })).rejects.toThrow(
      /table1\.file: flow 'two-tables' reads file sha256:000000000000… there.*--file table1\.file=PATH/,
    );
  });
});
