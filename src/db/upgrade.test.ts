/**
 * Opening a database written by every earlier schema version: each captured
 * fixture (`fixtures/flowbench-v<n>.json`, real rows from real runs) is
 * rebuilt with raw IndexedDB, opened with the current `FlowbenchDb`, and
 * every record is read back through the db functions the app uses and
 * checked against the current schemas. A fixture captured for the next
 * version joins these tests by its file name alone.
 */
import 'fake-indexeddb/auto';
import { readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { isFlowbenchError } from '../core/errors';
import { describeIssues, issuesFromZod } from '../core/flow/issues';
import { artifactRowSchema } from '../core/records/artifact';
import { fileRowSchema } from '../core/records/file';
import { flowRowSchema } from '../core/records/flow';
import { intervalRowSchema } from '../core/records/interval';
import { metricRowSchema } from '../core/records/metric';
import { migrate } from '../core/records/migration';
import { pointsOfChunks, type MetricChunk } from '../core/series/chunk';
import { runRecord, runRowSchema } from '../core/records/run';
import { runEntrySchema } from '../core/records/run-entry';
import { runNodeRowSchema } from '../core/records/run-node';
import { runEntryOf } from '../core/run/run-entry';
import { settingRowSchema } from '../core/records/setting';
import type { z } from '../core/schema';
import type { RunId } from '../core/run/record';
import { readStoredFile } from './files';
import {
  dbFixturePattern,
  fixtureRows,
  restoreFixtureDb,
  type DbFixture,
} from './fixtures/restore';
import { listFlows } from './flows';
import { runIntervals } from './intervals';
import { countMetricPoints, metricNames, metricSeries, metricSeriesColumns } from './metrics';
import { listRunEntries } from './run-list';
import { listRuns, queuedRuns, readRunRecord } from './runs';
import { FlowbenchDb, dbVersion } from './schema';
import { readSetting } from './settings';
import { storedCounts } from './testing';

const fixtureDir = new URL('./fixtures/', import.meta.url);
const fixtures = readdirSync(fixtureDir)
  .map((file) => dbFixturePattern.exec(file))
  .filter((match) => match !== null)
  .map((match) => ({
    version: Number(match[1]),
    fixture: JSON.parse(readFileSync(new URL(match[0], fixtureDir), 'utf8')) as DbFixture,
  }))
  .sort((a, b) => a.version - b.version);

const opened: FlowbenchDb[] = [];
/** Rebuild `fixture` under a fresh name and open it with the current schema. */
async function openFixture(
  fixture: DbFixture,
  edit?: Parameters<typeof restoreFixtureDb>[2],
): Promise<FlowbenchDb> {
  const name = `flowbench-fixture-${crypto.randomUUID()}`;
  await restoreFixtureDb(fixture, name, edit);
  const db = new FlowbenchDb(name);
  opened.push(db);
  await db.open();
  return db;
}
afterEach(async () => {
  for (const db of opened.splice(0)) await db.delete();
});

/** `row` checked against `schema`; the error names the record and the field. */
function expectValid(schema: z.ZodMiniType, row: unknown, what: string): void {
  const checked = schema.safeParse(row);
  if (!checked.success)
    throw new Error(`${what} is not valid: ${describeIssues(issuesFromZod(checked.error))}`);
}

const byKey =
  (...keys: string[]) =>
  (a: object, b: object) => {
    const key = (row: object) =>
      JSON.stringify(keys.map((k) => (row as Record<string, unknown>)[k]));
    return key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
  };

/**
 * The metric points a fixture holds: its rows, point by point before version
 * 7, and the points of each chunk from it on.
 */
function fixturePoints(fixture: DbFixture): Record<string, unknown>[] {
  return fixtureRows(fixture, 'metrics').flatMap((row) => {
    if (!('values' in row)) return [row];
    const { runId, name } = row;
    return pointsOfChunks([row as unknown as MetricChunk]).map((point) => ({
      runId,
      name,
      ...point,
    }));
  });
}

/** Metric points in (name, step) order, as a series is read. */
function byNameAndStep(a: Record<string, unknown>, b: Record<string, unknown>): number {
  const [an, bn] = [String(a.name), String(b.name)];
  return an < bn ? -1 : an > bn ? 1 : (a.step as number) - (b.step as number);
}

describe('a database of every earlier schema version opens with the current one', () => {
  it('has a fixture of every earlier version', () => {
    expect(fixtures.map((f) => f.version)).toEqual(
      Array.from({ length: dbVersion() - 1 }, (_, i) => i + 1),
    );
  });

  for (const { version, fixture } of fixtures) {
    it(`reads every record of a version ${version} database, valid and unchanged`, async () => {
      expect(fixture.idbVersion).toBe(version * 10);
      const db = await openFixture(fixture);
      expect(db.verno).toBe(dbVersion());

      const flows = await listFlows(db);
      flows.forEach((row) => expectValid(flowRowSchema, row, `flow ${row.id}`));
      expect([...flows].sort(byKey('id'))).toEqual(fixtureRows(fixture, 'flows').sort(byKey('id')));

      // The settings a person had (the captures chose a backend and had a flow open).
      const settings = new Map(fixtureRows(fixture, 'settings').map((r) => [r.key, r.value]));
      for (const name of ['backend', 'openFlow'] as const) {
        const value = await readSetting(db, name);
        expectValid(settingRowSchema, { key: name, value }, `setting ${name}`);
        expect(value, name).toEqual(settings.get(name));
      }

      for (const file of fixtureRows(fixture, 'files')) {
        const stored = await readStoredFile(db, file.digest as string);
        expectValid(fileRowSchema, stored, `file ${stored.digest}`);
        expect(stored).toEqual(file);
      }

      // Every run through the functions the Runs table, the charts and Export run use.
      const runs = await listRuns(db);
      expect(runs.length).toBe(fixtureRows(fixture, 'runs').length);
      // Unchanged but for what the run migrations newer than the fixture fill in.
      const since = runRecord.migrations.filter((m) => m.db > version);
      const expected = fixtureRows(fixture, 'runs').map((row) => migrate(row, since) as object);
      expect([...runs].sort(byKey('id'))).toEqual(expected.sort(byKey('id')));
      const read = { runNodes: 0, metrics: 0, artifacts: 0, intervals: 0 };
      for (const run of runs) {
        expectValid(runRowSchema, run, `run ${run.id}`);
        const record = (await readRunRecord(db, run.id))!;
        record.nodes.forEach((n) => expectValid(runNodeRowSchema, n, `node ${n.node}`));
        record.metrics.forEach((m) => expectValid(metricRowSchema, m, `metric ${m.name}`));
        record.artifacts.forEach((a) => expectValid(artifactRowSchema, a, `artifact ${a.name}`));
        record.intervals.forEach((i) => expectValid(intervalRowSchema, i, `interval ${i.kind}`));
        expect(await runIntervals(db, run.id)).toEqual(record.intervals);
        const names = await metricNames(db, run.id);
        let points = 0;
        for (const name of names) points += (await metricSeries(db, run.id, name)).length;
        expect(points).toBe(record.metrics.length);
        // Every series exactly as its point rows held it: what Export run writes, and the chart's columns.
        const stored = fixturePoints(fixture).filter((m) => m.runId === run.id);
        expect(record.metrics).toEqual(stored.sort(byNameAndStep));
        for (const name of names) {
          const columns = await metricSeriesColumns(db, run.id, name);
          const series = record.metrics.filter((m) => m.name === name);
          expect([...columns.step]).toEqual(series.map((m) => m.step));
          expect([...columns.value]).toEqual(series.map((m) => m.value));
          expect([...columns.ts]).toEqual(series.map((m) => m.ts));
        }
        read.runNodes += record.nodes.length;
        read.metrics += record.metrics.length;
        read.artifacts += record.artifacts.length;
        read.intervals += record.intervals.length;
      }
      // Nothing was lost on the way: every row of the fixture came back.
      const fixtureCount = (store: string) =>
        store === 'metrics' ? fixturePoints(fixture).length : fixtureRows(fixture, store).length;
      for (const [store, count] of Object.entries(read))
        expect(count, store).toBe(fixtureCount(store));
      const counts: Record<string, number> = await storedCounts(db);
      for (const store of Object.keys(counts))
        expect(counts[store], store).toBe(fixtureCount(store));
      expect(read.metrics).toBeGreaterThan(0);

      // The run list holds one valid entry per run, made from the run as it is now.
      const entries = await listRunEntries(db);
      entries.forEach((e) => expectValid(runEntrySchema, e, `run list entry ${e.id}`));
      expect(entries.map((e) => e.id).sort()).toEqual(runs.map((r) => r.id).sort());
      for (const entry of entries)
        expect({ ...entry, rev: 0 }).toEqual(
          runEntryOf(
            runs.find((r) => r.id === entry.id)!,
            0,
          ),
        );
    });
  }
});

/** The fixture of database version `version`. */
const fixtureOf = (version: number) => fixtures.find((f) => f.version === version)!.fixture;

describe('the upgrade to version 3', () => {
  const provenance = ['cause', 'backendChoice', 'requires', 'rerunOf'];
  const latest = fixtureOf(2);

  it('fills in the provenance of a run written before runs recorded it, and keeps the rest', async () => {
    const [first, ...rest] = fixtureRows(latest, 'runs');
    const older = Object.fromEntries(
      Object.entries(first!).filter(([key]) => !provenance.includes(key)),
    );
    const db = await openFixture(latest, (store, rows) =>
      store === 'runs' ? [older, ...rest] : rows,
    );
    const run = (await listRuns(db)).find((r) => r.id === first!.id)!;
    expectValid(runRowSchema, run, 'the older run');
    expect(run).toEqual({
      ...older,
      cause: 'ui',
      backendChoice: 'auto',
      requires: [],
      rerunOf: null,
      cancelRequestedAt: null,
    });
    // A run that had them keeps its own (the fixture's ran on wasm, not auto).
    for (const kept of rest)
      expect((await listRuns(db)).find((r) => r.id === kept.id)).toEqual({
        ...kept,
        cancelRequestedAt: null,
      });
  });

  it('refuses a row no migration makes valid, naming it, and leaves the database as it was', async () => {
    const name = `flowbench-fixture-${crypto.randomUUID()}`;
    const [first, ...rest] = fixtureRows(latest, 'runs');
    await restoreFixtureDb(latest, name, (store, rows) =>
      store === 'runs' ? [{ ...first, status: 'done' }, ...rest] : rows,
    );
    const db = new FlowbenchDb(name);
    opened.push(db);
    const error = await db.open().then(
      () => null,
      (e: unknown) => e,
    );
    const messages = (e: unknown): string =>
      e instanceof Error ? `${e.message} ${messages((e as { inner?: unknown }).inner)}` : '';
    expect(error).toBeInstanceOf(Error);
    expect(messages(error)).toContain(`"${String(first!.id)}": status:`);
    expect(
      isFlowbenchError(error, 'bad-stored-record') ||
        isFlowbenchError((error as { inner?: unknown }).inner, 'bad-stored-record'),
    ).toBe(true);
    db.close();

    // The versionchange transaction was undone: the old release still finds its rows.
    const raw = await new Promise<IDBDatabase>((resolve, reject) => {
      const open = indexedDB.open(name);
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error ?? new Error('cannot open'));
    });
    expect(raw.version).toBe(latest.idbVersion);
    const stored = await new Promise<unknown>((resolve, reject) => {
      const get = raw
        .transaction('runs')
        .objectStore('runs')
        .get(first!.id as RunId);
      get.onsuccess = () => resolve(get.result);
      get.onerror = () => reject(get.error ?? new Error('cannot read'));
    });
    raw.close();
    expect(stored).toMatchObject({ id: first!.id, status: 'done', requires: first!.requires });
  });
});

describe('the upgrade to version 4', () => {
  it('gives every run an empty cancel request, so no engine stops a run nobody cancelled', async () => {
    const fixture = fixtureOf(3);
    const stored = fixtureRows(fixture, 'runs');
    expect(stored.length).toBeGreaterThan(0);
    expect(stored.every((row) => !('cancelRequestedAt' in row))).toBe(true);
    const db = await openFixture(fixture);
    const runs = await listRuns(db);
    expect(runs.map((run) => run.cancelRequestedAt)).toEqual(stored.map(() => null));
  });
});

describe('the upgrade to version 7', () => {
  const fixture = fixtureOf(6);
  const points = fixtureRows(fixture, 'metrics');
  /** The fixture's longest series: a run of 20,000 steps, its loss every 5. */
  const longest = (() => {
    const sizes = new Map<string, number>();
    for (const p of points) {
      const key = JSON.stringify([p.runId, p.name]);
      sizes.set(key, (sizes.get(key) ?? 0) + 1);
    }
    const [key] = [...sizes].sort((a, b) => b[1] - a[1])[0]!;
    const [runId, name] = JSON.parse(key) as [RunId, string];
    return { runId, name, points: points.filter((p) => p.runId === runId && p.name === name) };
  })();

  it('refuses a point row that is no number, naming it, and leaves the database as it was', async () => {
    const name = `flowbench-fixture-${crypto.randomUUID()}`;
    const bad: Record<string, unknown> = { ...longest.points[7]!, value: 'high' };
    await restoreFixtureDb(fixture, name, (store, rows) =>
      store === 'metrics'
        ? rows.map((row) =>
            row.step === bad.step && row.runId === bad.runId && row.name === bad.name ? bad : row,
          )
        : rows,
    );
    const db = new FlowbenchDb(name);
    opened.push(db);
    const error = await db.open().then(
      () => null,
      (e: unknown) => e,
    );
    const inner = (error as { inner?: unknown } | null)?.inner;
    expect(
      isFlowbenchError(error, 'bad-stored-record') || isFlowbenchError(inner, 'bad-stored-record'),
    ).toBe(true);
    const message = `${(error as Error).message} ${inner instanceof Error ? inner.message : ''}`;
    expect(message).toContain(JSON.stringify([bad.runId, bad.name, bad.step]));
    db.close();
    // The versionchange transaction was undone: every point row is still there, as it was.
    const raw = await new Promise<IDBDatabase>((resolve, reject) => {
      const open = indexedDB.open(name);
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error ?? new Error('cannot open'));
    });
    expect(raw.version).toBe(fixture.idbVersion);
    const count = await new Promise<number>((resolve, reject) => {
      const request = raw.transaction('metrics').objectStore('metrics').count();
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error ?? new Error('cannot count'));
    });
    raw.close();
    expect(count).toBe(points.length);
  });

  it('stores each series as chunks of at most 2,048 points, far fewer rows than points', async () => {
    expect(longest.points.length).toBeGreaterThan(2048);
    const db = await openFixture(fixture);
    const chunks = await db.metrics.toArray();
    expect(chunks.every((c) => c.values.length <= 2048)).toBe(true);
    const long = chunks.filter((c) => c.runId === longest.runId && c.name === longest.name);
    expect(long.length).toBe(Math.ceil(longest.points.length / 2048));
    expect(await countMetricPoints(db)).toBe(points.length);
    expect(chunks.length).toBeLessThan(points.length / 100);
  });

  it('reads any step range of the long series as its point rows held it', async () => {
    const db = await openFixture(fixture);
    const { runId, name } = longest;
    const sorted = [...longest.points].sort(byNameAndStep);
    const steps = sorted.map((p) => p.step as number);
    for (const [from, to] of [
      [0, 0],
      [steps[100]!, steps[3000]!],
      [steps[2047]!, steps[2048]!],
      [steps.at(-1)!, Infinity],
    ] as const) {
      const range = await metricSeries(db, runId, name, { from, to });
      expect(range).toEqual(
        sorted.filter((p) => (p.step as number) >= from && (p.step as number) <= to),
      );
    }
  });

  it('keeps a run that had no points without chunks, and the series order of every run', async () => {
    const db = await openFixture(fixture);
    for (const run of await listRuns(db)) {
      const names = [
        ...new Set(points.filter((p) => p.runId === run.id).map((p) => p.name as string)),
      ];
      expect(await metricNames(db, run.id)).toEqual(names.sort());
    }
  });
});

describe('the upgrade to version 9', () => {
  it('gives every run list entry what its run requires, so the queue reads no run row', async () => {
    const fixture = fixtureOf(8);
    const runs = fixtureRows(fixture, 'runs');
    expect(runs.length).toBeGreaterThan(0);
    // As a release before entries kept `requires` wrote them; one run waits for WebGPU.
    const waiting = runs[0]!.id as RunId;
    const db = await openFixture(fixture, (store, rows) =>
      store === 'runList'
        ? rows.map(({ requires: _, ...entry }) =>
            entry.id === waiting ? { ...entry, status: 'queued' } : entry,
          )
        : store === 'runs'
          ? rows.map((row) =>
              row.id === waiting ? { ...row, status: 'queued', requires: ['webgpu'] } : row,
            )
          : rows,
    );
    const entries = await listRunEntries(db);
    expect(entries.length).toBe(runs.length);
    for (const entry of entries)
      expect(entry.requires, entry.id).toEqual(
        entry.id === waiting ? ['webgpu'] : runs.find((run) => run.id === entry.id)!.requires,
      );
    expect(await queuedRuns(db)).toMatchObject([{ id: waiting, requires: ['webgpu'] }]);
  });
});
