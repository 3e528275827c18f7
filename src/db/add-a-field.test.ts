/**
 * What adding a field to a stored record takes: its schema, one migration
 * and this test. A hypothetical field (`runner`: where a run ran) is added to
 * the run record the way docs/records.md says; the record list is data that
 * both the database and the importer take, so handing them the longer list
 * shows that a database of every earlier version, a database of today's
 * version and a run file of every version all come out with the field,
 * through one function.
 */
import 'fake-indexeddb/auto';
import { readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { storedRecords, type StoredRecords } from '../core/records';
import { defineRecord, recordVersion } from '../core/records/migration';
import { runRecord, runRowSchema } from '../core/records/run';
import { runFileVersion } from '../core/records/run-file';
import { z } from '../core/schema';
import { describeIssues } from '../core/flow/issues';
import { fromRunExport, toRunExport, type RunRecord } from '../core/run/export';
import {
  dbFixturePattern,
  restoreFixtureDb,
  runFileFixturePattern,
  type DbFixture,
} from './fixtures/restore';
import { journalRun, listRuns, readRunRecord } from './runs';
import { FlowbenchDb, dbVersion } from './schema';

// 1. The schema: the run record gains `runner`.
const runnerRunSchema = z.extend(runRowSchema, { runner: z.enum(['browser', 'node']) });
// 2. One migration: runs recorded before it ran in the browser; the next database and file versions carry it.
const withRunner: StoredRecords = {
  ...storedRecords,
  runs: defineRecord({
    ...runRecord,
    schema: runnerRunSchema,
    migrations: [
      ...runRecord.migrations,
      {
        to: recordVersion(runRecord) + 1,
        db: dbVersion() + 1,
        file: runFileVersion() + 1,
        change: 'runs say where they ran; every run before ran in the browser',
        up: (run) => ({ ...run, runner: run.runner ?? 'browser' }),
      },
    ],
  }),
};

const fixtureDir = new URL('./fixtures/', import.meta.url);
const fixtureFiles = (pattern: RegExp) =>
  readdirSync(fixtureDir).filter((file) => pattern.test(file));
const read = (file: string): unknown =>
  JSON.parse(readFileSync(new URL(file, fixtureDir), 'utf8')) as unknown;

const opened: FlowbenchDb[] = [];
function open(name: string, records?: StoredRecords): FlowbenchDb {
  const db = new FlowbenchDb(name, records);
  opened.push(db);
  return db;
}
afterEach(async () => {
  for (const db of opened.splice(0)) await db.delete();
});

/** The record of a run file, imported with `records`. */
function importRun(file: unknown, records?: StoredRecords): RunRecord {
  const result = fromRunExport(file, records);
  if (!result.ok) throw new Error(describeIssues(result.issues));
  return result.record;
}

describe('adding a field to the run record: the schema, one migration, this test', () => {
  it('an old database of every version comes out with it', async () => {
    const files = fixtureFiles(dbFixturePattern);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const name = `flowbench-runner-${crypto.randomUUID()}`;
      await restoreFixtureDb(read(file) as DbFixture, name);
      const db = open(name, withRunner);
      const runs = await listRuns(db);
      expect(db.verno).toBe(dbVersion() + 1);
      expect(runs.length, file).toBeGreaterThan(0);
      for (const run of runs) {
        expect(runnerRunSchema.safeParse(run).success, `${file}: run ${run.id}`).toBe(true);
        expect(run).toHaveProperty('runner', 'browser');
      }
    }
  });

  it("today's database comes out with it when the next release opens it", async () => {
    const name = `flowbench-runner-${crypto.randomUUID()}`;
    const today = open(name);
    const { run } = importRun(read(fixtureFiles(runFileFixturePattern)[0]!));
    await journalRun(today, run);
    today.close();
    const next = open(name, withRunner);
    expect((await readRunRecord(next, run.id))?.run).toEqual({ ...run, runner: 'browser' });
  });

  it('an old run file of every version, and a file today writes, come out with it', () => {
    const files = fixtureFiles(runFileFixturePattern).map(read);
    expect(files.length).toBeGreaterThan(0);
    const today = importRun(files[0]);
    files.push(JSON.parse(JSON.stringify(toRunExport(today))));
    for (const file of files)
      expect(importRun(file, withRunner).run).toHaveProperty('runner', 'browser');
    // Without the migration, the same file has no such field.
    expect(today.run).not.toHaveProperty('runner');
  });
});
