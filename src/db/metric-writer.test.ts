import 'fake-indexeddb/auto';
import type { DBCore } from 'dexie';
import { describe, expect, it } from 'vitest';
import type { MetricRow, RunId } from '../core/run/record';
import { RunMetricWriter } from './metric-writer';
import { metricSeries, putMetrics } from './metrics';
import type { FlowbenchDb } from './schema';
import { testDatabases } from './testing';

const { freshDb } = testDatabases('metric-writer');

const run = 'r1' as RunId;
/** Points `from` … `from + n - 1` of `name`; a few values are the ones a float must keep exactly. */
const points = (name: string, from: number, n: number): MetricRow[] =>
  Array.from({ length: n }, (_, i) => {
    const step = from + i;
    const odd = [Number.NaN, -0, Number.POSITIVE_INFINITY][step % 97];
    return { runId: run, name, step, value: odd ?? Math.sin(step), ts: 1_732_900_000 + step / 8 };
  });

/** The metrics rows as stored, in key order. */
const stored = (db: FlowbenchDb) => db.metrics.orderBy('[runId+name+step]').toArray();

/** `db` with every read of the metrics table counted in `reads.count`. */
function countingReads(db: FlowbenchDb): { count: number } {
  const reads = { count: 0 };
  db.use({
    stack: 'dbcore',
    name: 'count-metric-reads',
    create: (down: DBCore): DBCore => ({
      ...down,
      table: (name) => {
        const table = down.table(name);
        if (name !== 'metrics') return table;
        return {
          ...table,
          get: (request) => (reads.count++, table.get(request)),
          getMany: (request) => (reads.count++, table.getMany(request)),
          query: (request) => (reads.count++, table.query(request)),
          openCursor: (request) => (reads.count++, table.openCursor(request)),
          count: (request) => (reads.count++, table.count(request)),
        };
      },
    }),
  });
  return reads;
}

describe('the run metric writer', () => {
  it('stores what putMetrics stores, flush for flush, across chunk boundaries and series', async () => {
    const ours = freshDb();
    const reference = freshDb();
    const writer = new RunMetricWriter(ours, run);
    // Flushes of the driver's shape: two series interleaved, a flush that crosses a chunk
    // boundary (2,048 points), one that fills a chunk exactly, one that starts a third.
    const flushes = [
      [...points('loss', 0, 1000), ...points('acc', 0, 10)],
      [...points('loss', 1000, 1500), ...points('acc', 10, 2038)],
      [...points('loss', 2500, 1596)],
      [...points('loss', 4096, 1), ...points('acc', 2048, 3)],
    ];
    for (const flush of flushes) {
      await writer.put(flush);
      await putMetrics(reference, flush);
    }
    expect(await stored(ours)).toEqual(await stored(reference));
    const loss = await metricSeries(ours, run, 'loss');
    expect(loss.map((p) => p.step)).toEqual(Array.from({ length: 4097 }, (_, i) => i));
    expect(Object.is(loss[98]!.value, -0)).toBe(true);
    expect(loss[97]!.value).toBeNaN();
    expect(loss[99]!.value).toBe(Number.POSITIVE_INFINITY);
  });

  it('reads nothing from the store while it appends', async () => {
    const db = freshDb();
    const reads = countingReads(db);
    const writer = new RunMetricWriter(db, run);
    for (let from = 0; from < 6000; from += 700) await writer.put(points('loss', from, 700));
    expect(reads.count).toBe(0);
    const series = await metricSeries(db, run, 'loss');
    expect(series.map((p) => p.step)).toEqual(Array.from({ length: 6300 }, (_, i) => i));
  });

  it('replaces a step written again, then appends after the series as stored', async () => {
    const db = freshDb();
    const writer = new RunMetricWriter(db, run);
    await writer.put(points('loss', 0, 3000));
    // Step 10 and step 2,999 again, then the next flush goes on from 3,000.
    await writer.put([
      { runId: run, name: 'loss', step: 10, value: 42, ts: 1 },
      { runId: run, name: 'loss', step: 2999, value: 43, ts: 2 },
    ]);
    await writer.put(points('loss', 3000, 100));
    const series = await metricSeries(db, run, 'loss');
    expect(series.map((p) => p.step)).toEqual(Array.from({ length: 3100 }, (_, i) => i));
    expect([series[10]!.value, series[2999]!.value]).toEqual([42, 43]);
    expect(series[3000]!.value).toBe(Math.sin(3000));
  });

  it('refuses a point of another run and writes nothing of the batch', async () => {
    const db = freshDb();
    const writer = new RunMetricWriter(db, run);
    const batch = [...points('loss', 0, 5), { ...points('loss', 5, 1)[0]!, runId: 'r2' as RunId }];
    await expect(writer.put(batch)).rejects.toThrow(
      'a metric point of run r2 given to the writer of run r1',
    );
    expect(await db.metrics.count()).toBe(0);
  });
});
