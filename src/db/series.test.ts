import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import type { MetricRow, RunId } from '../core/run/record';
import { putMetrics } from './runs';
import { FlowbenchDb } from './schema';
import { metricPointsAfter, metricSeriesEnds, runIntervals } from './series';

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
