import 'fake-indexeddb/auto';
import type { DBCore } from 'dexie';
import { describe, expect, it } from 'vitest';
import type { MetricRow, RunId } from '../core/run/record';
import { runIntervals } from './intervals';
import {
  countMetricPoints,
  metricColumnsAfter,
  metricNames,
  metricPointsAfter,
  metricSeries,
  metricSeriesColumns,
  metricSeriesEnds,
  putMetrics,
} from './metrics';
import { FlowbenchDb } from './schema';
import { testDatabases } from './testing';

const { freshDb, reopen } = testDatabases('series');

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
  it('upserts on (run, name, step): writing a step twice keeps one point, the last', async () => {
    const db = freshDb();
    await putMetrics(db, [point('r1', 'train.loss', 0, 2.3), point('r1', 'train.loss', 1, 2.1)]);
    await putMetrics(db, [point('r1', 'train.loss', 1, 1.9), point('r1', 'train.loss', 2, 1.7)]);
    const series = await metricSeries(db, 'r1' as RunId, 'train.loss');
    expect(series.map((r) => [r.step, r.value])).toEqual([
      [0, 2.3],
      [1, 1.9],
      [2, 1.7],
    ]);
    expect(await countMetricPoints(db)).toBe(3);
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

describe('metric chunks in the store', () => {
  const series = (name: string, from: number, n: number, value = (s: number) => s): MetricRow[] =>
    Array.from({ length: n }, (_, i) => ({
      runId: run,
      name,
      step: from + i,
      value: value(from + i),
      ts: from + i,
    }));
  const chunkSpans = async (db: FlowbenchDb, name: string) =>
    (await db.metrics.where('runId').equals(run).toArray())
      .filter((c) => c.name === name)
      .map((c) => [c.step, c.last]);

  it('fills the open tail chunk flush by flush, and cuts a flush at the chunk boundary inside it', async () => {
    const db = freshDb();
    for (let from = 0; from < 2000; from += 125) await putMetrics(db, series('a', from, 125));
    expect(await chunkSpans(db, 'a')).toEqual([[0, 1999]]);
    // This flush crosses 2,048: its first 48 points fill the chunk, the rest start the next.
    await putMetrics(db, series('a', 2000, 125));
    expect(await chunkSpans(db, 'a')).toEqual([
      [0, 2047],
      [2048, 2124],
    ]);
    expect((await metricSeries(db, run, 'a')).map((p) => p.step)).toEqual(
      Array.from({ length: 2125 }, (_, i) => i),
    );
  });

  it('upserts an earlier step within a chunk and across chunks, each step once', async () => {
    const db = freshDb();
    await putMetrics(db, series('a', 0, 5000));
    await putMetrics(db, [
      { runId: run, name: 'a', step: 7, value: -7, ts: 0 },
      { runId: run, name: 'a', step: 2047, value: -2047, ts: 0 },
      { runId: run, name: 'a', step: 2048, value: -2048, ts: 0 },
      { runId: run, name: 'a', step: 4999, value: -4999, ts: 0 },
    ]);
    const got = await metricSeries(db, run, 'a');
    expect(got.map((p) => p.step)).toEqual(Array.from({ length: 5000 }, (_, i) => i));
    const changed = new Set([7, 2047, 2048, 4999]);
    expect(got.filter((p) => p.value < 0).map((p) => p.step)).toEqual([...changed]);
    expect(got.every((p) => (changed.has(p.step) ? p.value === -p.step : p.value === p.step))).toBe(
      true,
    );
    expect(await countMetricPoints(db)).toBe(5000);
  });

  it('keeps gaps, and fills them later in place', async () => {
    const db = freshDb();
    await putMetrics(db, [...series('a', 0, 3), ...series('a', 10, 3)]);
    expect((await metricSeries(db, run, 'a')).map((p) => p.step)).toEqual([0, 1, 2, 10, 11, 12]);
    await putMetrics(
      db,
      series('a', 3, 7, (s) => -s),
    );
    expect((await metricSeries(db, run, 'a')).map((p) => p.step)).toEqual(
      Array.from({ length: 13 }, (_, i) => i),
    );
  });

  it('reads a step range as the points within it, across chunk boundaries', async () => {
    const db = freshDb();
    await putMetrics(db, series('a', 0, 6000));
    const range = await metricSeries(db, run, 'a', { from: 2040, to: 4100 });
    expect(range.map((p) => p.step)).toEqual(Array.from({ length: 2061 }, (_, i) => 2040 + i));
    const columns = await metricSeriesColumns(db, run, 'a', { from: 5990 });
    expect([...columns.step]).toEqual(Array.from({ length: 10 }, (_, i) => 5990 + i));
    expect(await metricSeries(db, run, 'a', { from: 7000 })).toEqual([]);
  });

  it('reads only the chunks that overlap the range asked for', async () => {
    const db = freshDb();
    await putMetrics(db, series('a', 0, 10 * 2048));
    let chunksRead = 0;
    // A second connection that counts the chunk rows each query hands back.
    const reader = reopen(db);
    reader.use({
      stack: 'dbcore',
      name: 'count-chunk-reads',
      create: (down: DBCore): DBCore => ({
        ...down,
        table: (name) => {
          const table = down.table(name);
          return {
            ...table,
            query: async (request) => {
              const response = await table.query(request);
              if (name === 'metrics') chunksRead += response.result.length;
              return response;
            },
          };
        },
      }),
    });
    // Steps 5,000 … 5,100 lie in the third chunk (4,096 … 6,143) alone.
    const range = await metricSeries(reader, run, 'a', { from: 5000, to: 5100 });
    expect(range.map((p) => p.step)).toEqual(Array.from({ length: 101 }, (_, i) => 5000 + i));
    expect(chunksRead).toBe(1);
    chunksRead = 0;
    // The live chart's read past step 20,000: the last chunk alone.
    const tail = await metricColumnsAfter(reader, run, 'a', 20_000, 100_000);
    expect(tail.length).toBe(10 * 2048 - 20_001);
    expect(chunksRead).toBe(1);
  });

  it('reads the points past a step a limit at a time, exactly the limit until the end', async () => {
    const db = freshDb();
    await putMetrics(db, series('a', 0, 5000));
    const steps: number[] = [];
    let after: number | undefined;
    for (;;) {
      const got = await metricColumnsAfter(db, run, 'a', after, 1500);
      steps.push(...got.step);
      if (got.length < 1500) break;
      after = got.step[got.length - 1];
    }
    expect(steps).toEqual(Array.from({ length: 5000 }, (_, i) => i));
  });

  it('keeps NaN, ±Infinity and -0 exact', async () => {
    const db = freshDb();
    const odd = [NaN, Infinity, -Infinity, -0];
    await putMetrics(
      db,
      series('a', 0, 4, (s) => odd[s]!),
    );
    const got = await metricSeries(db, run, 'a');
    got.forEach((p, i) => expect(Object.is(p.value, odd[i])).toBe(true));
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
