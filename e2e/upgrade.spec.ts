/**
 * A browser profile of the release before metric chunks (database version
 * 6, captured from real runs, one of 20,000 steps) opened by this build: the
 * upgrade regroups its point rows into chunks, and every run charts and
 * exports exactly the points it had.
 *
 * The fixture is written with raw IndexedDB from a page of the app's origin
 * that does not run the app (its icon), so the app's first open of the
 * database is the upgrade, as in a person's browser after an update.
 */
import { readFileSync } from 'node:fs';
import { expect, test } from './fixtures';
import { Workbench } from './pages/workbench';
import type { MetricPoint } from './support/formats';

interface FixtureStore {
  keyPath: string | string[];
  autoIncrement: boolean;
  indexes: { name: string; keyPath: string | string[]; unique: boolean; multiEntry: boolean }[];
  rows: unknown[];
}
interface DbFixture {
  idbVersion: number;
  stores: Record<string, FixtureStore>;
}
interface PointRow {
  runId: string;
  name: string;
  step: number;
  value: number | { $number: string };
  ts: number;
}

const fixture = JSON.parse(
  readFileSync(new URL('../src/db/fixtures/flowbench-v6.json', import.meta.url), 'utf8'),
) as DbFixture;

/** A stored point as a run file writes it: JSON has no NaN, ±Infinity or -0. */
function filePoint({ step, value, ts }: PointRow): MetricPoint {
  const v = typeof value === 'number' ? value : Number(value.$number);
  if (Number.isFinite(v) && !Object.is(v, -0)) return [step, v, ts];
  return [step, null, ts, Object.is(v, -0) ? '-0' : String(v)];
}

test('a version 6 profile opens upgraded: every run charts and exports the points it had', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await page.goto('/favicon.svg');
  await page.evaluate(
    (db: DbFixture) =>
      new Promise<void>((resolve, reject) => {
        const decode = (value: unknown): unknown => {
          if (Array.isArray(value)) return value.map(decode);
          if (value === null || typeof value !== 'object') return value;
          const tagged = value as { $bytes?: string; $number?: string };
          if (typeof tagged.$bytes === 'string')
            return Uint8Array.from(atob(tagged.$bytes), (c) => c.charCodeAt(0));
          if (typeof tagged.$number === 'string') return Number(tagged.$number);
          return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, decode(v)]));
        };
        const open = indexedDB.open('flowbench', db.idbVersion);
        open.onupgradeneeded = () => {
          for (const [name, store] of Object.entries(db.stores)) {
            const created = open.result.createObjectStore(name, {
              keyPath: store.keyPath,
              autoIncrement: store.autoIncrement,
            });
            for (const index of store.indexes)
              created.createIndex(index.name, index.keyPath, {
                unique: index.unique,
                multiEntry: index.multiEntry,
              });
            for (const row of store.rows) created.add(decode(row));
          }
        };
        open.onsuccess = () => {
          open.result.close();
          resolve();
        };
        open.onerror = () => reject(open.error ?? new Error('cannot write the fixture'));
      }),
    fixture,
  );

  const app = new Workbench(page);
  await app.open();
  const points = fixture.stores.metrics!.rows as PointRow[];
  const runs = [...new Set(points.map((p) => p.runId))];
  await expect(app.runs.rows).toHaveCount(fixture.stores.runs!.rows.length);
  for (const id of runs) {
    const stored = points.filter((p) => p.runId === id);
    const names = [...new Set(stored.map((p) => p.name))];
    await app.runs.select(app.runs.row(id));
    const loss = stored.filter((p) => p.name === 'train.loss');
    if (loss.length > 0)
      await expect(app.runs.chart('train.loss')).toHaveAttribute(
        'data-points',
        String(loss.length),
      );
    const { json: record } = await app.runs.exportRun();
    expect(Object.keys(record.metrics).sort()).toEqual(names.sort());
    for (const name of names)
      expect(record.metrics[name], `${id} ${name}`).toEqual(
        stored
          .filter((p) => p.name === name)
          .sort((a, b) => a.step - b.step)
          .map(filePoint),
      );
  }
  // The long run is in it, so the series spans several chunks.
  expect(
    Math.max(...runs.map((id) => points.filter((p) => p.runId === id).length)),
  ).toBeGreaterThan(2048);
});
