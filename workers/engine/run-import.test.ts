import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MAX_IMPORT_BYTES } from '../../src/core/run/import-file';
import type { RunId } from '../../src/core/run/record';
import { readRunRecord } from '../../src/db/runs';
import { storedCounts, testDatabases } from '../../src/db/testing';
import { importFiles } from './run-import';
import { importFile } from './testing';
import { reviveError, type SerializedError } from '../../src/core/errors';

const runText = readFileSync('e2e/flows/non-finite.run.json', 'utf8');
const runDoc = JSON.parse(runText) as { run: { id: RunId }; metrics: Record<string, unknown[]> };
const flowText = readFileSync('src/examples/spirals-mlp.flow.json', 'utf8');

const { freshDb } = testDatabases('import');

const file = (text: string) => new Blob([text], { type: 'application/json' });

describe('importing a file in the engine worker', () => {
  it('writes a run file whole and names the run', async () => {
    const db = freshDb();
    const imported = await importFile(db, 'a.run.json', file(runText));
    expect(imported).toEqual({ kind: 'run', runId: runDoc.run.id });
    const record = await readRunRecord(db, runDoc.run.id);
    const points = Object.values(runDoc.metrics).reduce((n, series) => n + series.length, 0);
    expect(record?.metrics).toHaveLength(points);
  });

  it('hands any other file back parsed, writing nothing', async () => {
    const db = freshDb();
    const imported = await importFile(db, 'spirals.flow.json', file(flowText));
    expect(imported).toEqual({ kind: 'document', value: JSON.parse(flowText) as unknown });
    expect((await storedCounts(db)).runs).toBe(0);
  });

  it('refuses a malformed run file by its JSON path and writes nothing', async () => {
    const db = freshDb();
    const bad = JSON.parse(runText) as { nodes: { status: string }[] };
    bad.nodes[0]!.status = 'finished';
    const refused = importFile(db, 'bad.run.json', file(JSON.stringify(bad)));
    await expect(refused).rejects.toMatchObject({ code: 'bad-import' });
    await expect(refused).rejects.toThrow(
      /^bad\.run\.json is not a valid run file:\nnodes\[0\]\.status/,
    );
    expect((await storedCounts(db)).runs).toBe(0);
    expect((await storedCounts(db)).metrics).toBe(0);
  });

  it('refuses truncated JSON and an oversized file, naming the file', async () => {
    const db = freshDb();
    await expect(importFile(db, 'cut.run.json', file(runText.slice(0, 200)))).rejects.toThrow(
      /^cut\.run\.json is not valid JSON/,
    );
    const oversized = {
      size: MAX_IMPORT_BYTES + 1,
      // Its first bytes are looked at (a bundle is a zip); the file itself is never read.
      slice: () => new Blob(['{"fo']),
      text: () => Promise.reject(new Error('read')),
    };
    await expect(importFile(db, 'big.run.json', oversized as unknown as Blob)).rejects.toThrow(
      'big.run.json is 20.0 MB; Flowbench imports files up to 20 MB',
    );
    expect((await storedCounts(db)).runs).toBe(0);
  });

  it('refuses a run that is already here and leaves it as it was', async () => {
    const db = freshDb();
    await importFile(db, 'a.run.json', file(runText));
    const before = await readRunRecord(db, runDoc.run.id);
    await expect(importFile(db, 'a.run.json', file(runText))).rejects.toMatchObject({
      code: 'run-exists',
    });
    expect(await readRunRecord(db, runDoc.run.id)).toEqual(before);
  });

  it('imports several files each on its own: the good runs written, the rest refused by name', async () => {
    const db = freshDb();
    const other = { ...runDoc, run: { ...runDoc.run, id: '0193a1b2-c3d4-7e5f-8a6b-000000000abc' } };
    const outcomes = await importFiles(db, [
      { name: 'a.run.json', file: file(runText) },
      { name: 'again.run.json', file: file(runText) },
      { name: 'cut.run.json', file: file(runText.slice(0, 200)) },
      { name: 'spirals.flow.json', file: file(flowText) },
      { name: 'b.run.json', file: file(JSON.stringify(other)) },
    ]);
    expect(outcomes.map((outcome) => outcome.kind)).toEqual([
      'run',
      'refused',
      'refused',
      'document',
      'run',
    ]);
    const [, again, cut] = outcomes;
    expect(again).toMatchObject({ error: { code: 'run-exists' } });
    expect(cut).toMatchObject({ error: { code: 'bad-import' } });
    expect(reviveError((cut as { error: SerializedError }).error).message).toMatch(
      /^cut\.run\.json is not valid JSON/,
    );
    expect((await storedCounts(db)).runs).toBe(2);
    expect(await readRunRecord(db, other.run.id as RunId)).toMatchObject({
      run: { id: other.run.id },
    });
  });
});
