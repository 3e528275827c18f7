import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import type { MetricRow, RunId } from '../core/run/record';
import { runIntervals } from './intervals';
import {
  metricNames,
  metricPointsAfter,
  metricSeries,
  metricSeriesEnds,
  putMetrics,
} from './metrics';
import { FlowbenchDb } from './schema';

const opened: FlowbenchDb[] = [];
function freshDb(): FlowbenchDb {
  const db = new FlowbenchDb(`flowbench-test-series-${crypto.randomUUID()}`);
  opened.push(db);
  return db;
}
afterEach(async () => {
  for (const db of opened.splice(0)) await db.delete();
});

const run = 'r1' as RunId;
const rows = (name: string, n: number): MetricRow[] =>
  Array.from({ length: n }, (_, step) => ({ runId: run, name, step, value: step, ts: step }));

const point = (runId: string, name: string, step: number, value: number): MetricRow => ({
  runId: runId as RunId,
  name,
  step,
  value,
  ts: 1732900000 + step,
});

describe('metrics', () => {
  it('upserts on (run, name, step): writing a step twice keeps one row, the last', async () => {
    const db = freshDb();
    await putMetrics(db, [point('r1', 'train.loss', 0, 2.3), point('r1', 'train.loss', 1, 2.1)]);
    await putMetrics(db, [point('r1', 'train.loss', 1, 1.9), point('r1', 'train.loss', 2, 1.7)]);
    const series = await metricSeries(db, 'r1' as RunId, 'train.loss');
    expect(series.map((r) => [r.step, r.value])).toEqual([
      [0, 2.3],
      [1, 1.9],
      [2, 1.7],
    ]);
    expect(await db.metrics.count()).toBe(3);
  });

  it('returns one series of one run, in step order', async () => {
    const db = freshDb();
    // Written out of order, interleaved with another metric and another run.
    await putMetrics(db, [
      point('r1', 'train.loss', 10, 0.5),
      point('r1', 'train.loss', 2, 0.9),
      point('r1', 'train.lossy', 0, 9),
      point('r1', 'eval.acc', 0, 0.8),
      point('r2', 'train.loss', 0, 7),
      point('r2', 'r2.only', 0, 7),
      point('r1', 'train.loss', 0, 1.2),
      point('r1', 'train.loss', 1, Number.NaN),
    ]);
    const series = await metricSeries(db, 'r1' as RunId, 'train.loss');
    expect(series.map((r) => r.step)).toEqual([0, 1, 2, 10]);
    expect(series.every((r) => r.runId === 'r1' && r.name === 'train.loss')).toBe(true);
    expect(series[1]!.value).toBeNaN();
    expect(await metricNames(db, 'r1' as RunId)).toEqual(['eval.acc', 'train.loss', 'train.lossy']);
  });
});

describe('series reads', () => {
  it('read a series a slice at a time, past a step, without the neighbouring series', async () => {
    const db = freshDb();
    await putMetrics(db, [...rows('a.loss', 10), ...rows('b.loss', 3), ...rows('a.lossy', 2)]);
    const head = await metricPointsAfter(db, run, 'a.loss', undefined, 4);
    expect(head.map((p) => p.step)).toEqual([0, 1, 2, 3]);
    const tail = await metricPointsAfter(db, run, 'a.loss', 7, 100);
    expect(tail.map((p) => [p.name, p.step])).toEqual([
      ['a.loss', 8],
      ['a.loss', 9],
    ]);
    expect(await metricPointsAfter(db, run, 'a.loss', 9, 100)).toEqual([]);
  });

  it('give a series its first and last point, none for a series not stored', async () => {
    const db = freshDb();
    await putMetrics(db, rows('a.loss', 10));
    const ends = await metricSeriesEnds(db, run, 'a.loss');
    expect([ends.first?.step, ends.last?.step]).toEqual([0, 9]);
    expect(await metricSeriesEnds(db, run, 'nope')).toEqual({ first: undefined, last: undefined });
  });

  it("give a run's wait intervals without their row ids", async () => {
    const db = freshDb();
    await db.intervals.add({ runId: run, kind: 'data_wait', start: 1, end: 2 });
    await db.intervals.add({ runId: 'r2' as RunId, kind: 'data_wait', start: 1, end: 2 });
    expect(await runIntervals(db, run)).toEqual([
      { runId: run, kind: 'data_wait', start: 1, end: 2 },
    ]);
  });
});
