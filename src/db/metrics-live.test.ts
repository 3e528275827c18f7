import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunId } from '../core/run/record';
import type { Live } from './live';
import { deleteMetricsOfRuns, putMetrics } from './metrics';
import { liveMetricNamesOfRuns, liveMetricSeriesOfRuns } from './metrics-live';
import { FlowbenchDb } from './schema';
import { metricPoints } from './testing';

const opened: FlowbenchDb[] = [];
function freshDb(): FlowbenchDb {
  const db = new FlowbenchDb(`flowbench-test-metrics-live-${crypto.randomUUID()}`);
  opened.push(db);
  return db;
}
const watches: { unsubscribe(): void }[] = [];
afterEach(async () => {
  for (const watch of watches.splice(0)) watch.unsubscribe();
  for (const db of opened.splice(0)) await db.delete();
});

const points = metricPoints;

/** Everything a live read tells, and a way to wait until it told something that passes `until`. */
function watch<T>(read: Live<T>) {
  const told: T[] = [];
  let waiting: { until: (value: T) => boolean; done: (value: T) => void } | undefined;
  watches.push(
    read.subscribe({
      next: (value) => {
        told.push(value);
        if (waiting?.until(value)) waiting.done(value);
      },
      error: (error) => {
        throw error;
      },
    }),
  );
  const next = (until: (value: T) => boolean) =>
    new Promise<T>((done) => {
      const already = told.find(until);
      if (already !== undefined) done(already);
      else waiting = { until, done };
    });
  return { told, next };
}

describe('live metrics', () => {
  it("follows each run's series as points are committed, in step order", async () => {
    const db = freshDb();
    await putMetrics(db, [...points('a', 'loss', 0, 5), ...points('b', 'loss', 0, 2)]);
    const series = watch(liveMetricSeriesOfRuns(db, ['a', 'b'] as RunId[], 'loss'));
    const first = await series.next((rows) => rows[0]!.length === 5);
    expect(first.map((rows) => [...rows.step])).toEqual([
      [0, 1, 2, 3, 4],
      [0, 1],
    ]);

    await putMetrics(db, [...points('a', 'loss', 5, 8), ...points('a', 'other', 0, 3)]);
    const later = await series.next((rows) => rows[0]!.length === 8);
    expect([...later[0]!.step]).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect([...later[0]!.value]).toEqual([0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]);
    expect([...later[1]!.step]).toEqual([0, 1]);
  });

  it("tells the runs' metric names, sorted, again only when they change", async () => {
    const db = freshDb();
    await putMetrics(db, [...points('a', 'train.loss', 0, 2), ...points('b', 'eval.acc', 0, 1)]);
    const names = watch(liveMetricNamesOfRuns(db, ['a', 'b'] as RunId[]));
    expect(await names.next(() => true)).toEqual(['eval.acc', 'train.loss']);

    await putMetrics(db, points('a', 'train.loss', 2, 4));
    await putMetrics(db, points('b', 'a.first', 0, 1));
    expect(await names.next((told) => told.length === 3)).toEqual([
      'a.first',
      'eval.acc',
      'train.loss',
    ]);
    expect(names.told).toHaveLength(2);
  });

  it('reads a series stored anew (deleted and written again, longer) from its start', async () => {
    const db = freshDb();
    await putMetrics(db, [...points('a', 'loss', 0, 5), ...points('b', 'loss', 0, 2)]);
    const series = watch(liveMetricSeriesOfRuns(db, ['a', 'b'] as RunId[], 'loss'));
    await series.next((told) => told[0]!.length === 5);

    // In one transaction, as an import over a deleted run: no watch sees the series gone between.
    const again = points('a', 'loss', 0, 8).map((p) => ({ ...p, value: p.value + 100 }));
    await db.transaction('rw', db.metrics, async () => {
      await deleteMetricsOfRuns(db, ['a'] as RunId[]);
      await putMetrics(db, again);
    });
    const later = await series.next((told) => told[0]!.length === 8);
    expect([...later[0]!.value]).toEqual(again.map((p) => p.value));
    expect([...later[1]!.step]).toEqual([0, 1]);
  });
});
