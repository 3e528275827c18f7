/**
 * A long series stored both ways, in the page: as the app stores it now
 * (chunks of points, written through the run's `MetricBatcher` → its
 * `RunMetricWriter`, read by the live chart's `LiveSeries`) and one row per point
 * as database version 5 stored it (raw IndexedDB, the same key path and
 * index, read in pages of 8,000 rows as the chart read it then). The Node
 * side measures disk growth between the writes with `usage()`.
 */
import type { MetricRow, RunId } from '../../src/core/run/record';
import { LiveSeries } from '../../src/core/series/live-series';
import { SeriesBuffer } from '../../src/core/series/series-buffer';
import { metricColumnsAfter, metricSeriesEnds } from '../../src/db/metrics';
import { FlowbenchDb } from '../../src/db/schema';
import type { SeriesRead, SeriesWrite } from './api';
import { timedMetricPath } from './metric-path';

const CHUNKS_DB = 'flowbench-bench-chunks';
const POINTS_DB = 'flowbench-bench-points';
const NUDGE_DB = 'flowbench-bench-nudge';
/** A run id as the app makes them (a UUID's 36 characters): the per-point layout stores it in every row. */
const RUN = crypto.randomUUID() as RunId;
const NAME = 'train.loss';
/** Rows per page when reading the per-point layout: what the chart read at a time before chunks. */
const POINT_PAGE = 8_000;

let chunks: FlowbenchDb | null = null;

function openPoints(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open(POINTS_DB, 50);
    open.onupgradeneeded = () => {
      const store = open.result.createObjectStore('metrics', {
        keyPath: ['runId', 'name', 'step'],
      });
      store.createIndex('runId', 'runId');
    };
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error ?? new Error('cannot open the per-point store'));
  });
}

function deleteDb(name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.deleteDatabase(name);
    request.onsuccess = () => resolve();
    request.onerror = () => reject(request.error ?? new Error(`cannot delete ${name}`));
  });
}

/** Delete both stores (and the one written to take in their size). */
export async function resetSeriesStores(): Promise<void> {
  chunks?.close();
  chunks = null;
  await deleteDb(CHUNKS_DB);
  await deleteDb(POINTS_DB);
  await deleteDb(NUDGE_DB);
}

/**
 * The origin's storage usage in bytes once the store has settled its files.
 * The store compacts what a write left behind (the versions of a chunk each
 * flush rewrote) some time after the write, and the browser takes in the
 * store's new size at its next commit: so, after `settleMs`, a one-row write
 * elsewhere, then the estimate. Both layouts are read the same way.
 */
export async function storageUsage(settleMs: number): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, settleMs));
  const idb = await new Promise<IDBDatabase>((resolve, reject) => {
    const open = indexedDB.open(NUDGE_DB, 1);
    open.onupgradeneeded = () => open.result.createObjectStore('nudge');
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error ?? new Error('cannot open the nudge store'));
  });
  await new Promise<void>((resolve, reject) => {
    const tx = idb.transaction('nudge', 'readwrite');
    tx.objectStore('nudge').put(performance.now(), 'at');
    tx.oncomplete = () => resolve();
    tx.onabort = () => reject(tx.error ?? new Error('transaction aborted'));
  });
  idb.close();
  return (await navigator.storage.estimate()).usage ?? 0;
}

const valueAt = (i: number) => Math.exp(-i / 1e5) + 0.01 * Math.sin(i);
/** Both layouts store the same wall times: a point a millisecond, as a fast training loop emits them. */
const T0 = Date.now();
const wallMsAt = (i: number) => T0 + i;

/** `points` points of one series through the run's metric path into the chunk store. */
export async function writeChunkSeries(points: number): Promise<SeriesWrite> {
  chunks ??= new FlowbenchDb(CHUNKS_DB);
  let pushed = 0;
  const path = timedMetricPath(chunks, RUN, () => wallMsAt(pushed));
  const start = performance.now();
  for (let i = 0; i < points; i++, pushed++) {
    path.batcher.push(NAME, valueAt(i));
    // Let flushes run as they would beside a training loop, instead of queueing a million points.
    if (i % 65_536 === 65_535) await path.batcher.flush();
  }
  await path.finish();
  return { ms: performance.now() - start, flushMs: path.flushMs };
}

/** The same series as one row per point, raw `put`s in transactions of 10,000 rows. */
export async function writePointSeries(points: number): Promise<SeriesWrite> {
  const idb = await openPoints();
  const start = performance.now();
  const flushMs: number[] = [];
  try {
    for (let from = 0; from < points; from += 10_000) {
      const began = performance.now();
      await new Promise<void>((resolve, reject) => {
        const tx = idb.transaction('metrics', 'readwrite');
        const store = tx.objectStore('metrics');
        for (let i = from; i < Math.min(points, from + 10_000); i++) {
          const row: MetricRow = {
            runId: RUN,
            name: NAME,
            step: i,
            value: valueAt(i),
            ts: wallMsAt(i) / 1000,
          };
          store.put(row);
        }
        tx.oncomplete = () => resolve();
        tx.onabort = () => reject(tx.error ?? new Error('transaction aborted'));
      });
      flushMs.push(performance.now() - began);
    }
  } finally {
    idb.close();
  }
  return { ms: performance.now() - start, flushMs };
}

/** Long tasks (over 50 ms) of the main thread while `work` runs; the longest, in ms. */
async function longestTask<T>(
  work: () => Promise<T>,
): Promise<{ result: T; longestTaskMs: number }> {
  let longest = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) longest = Math.max(longest, entry.duration);
  });
  observer.observe({ type: 'longtask', buffered: false });
  try {
    const result = await work();
    // Entries are delivered after the task that made them.
    await new Promise((resolve) => setTimeout(resolve, 50));
    return { result, longestTaskMs: longest };
  } finally {
    observer.disconnect();
  }
}

/** The whole series from the chunk store into the chart's columns, as a chart opening it reads it. */
export async function readChunkSeries(): Promise<SeriesRead> {
  chunks ??= new FlowbenchDb(CHUNKS_DB);
  const db = chunks;
  const start = performance.now();
  const { result, longestTaskMs } = await longestTask(async () => {
    const live = new LiveSeries({
      readAfter: (after, limit) => metricColumnsAfter(db, RUN, NAME, after, limit),
    });
    const series = await live.update(await metricSeriesEnds(db, RUN, NAME));
    return { points: series.length, reads: live.reads, ms: performance.now() - start };
  });
  return { ...result, longestTaskMs };
}

/** The whole series from the per-point store into the same columns, 8,000 rows a read. */
export async function readPointSeries(): Promise<SeriesRead> {
  const idb = await openPoints();
  const start = performance.now();
  try {
    const { result, longestTaskMs } = await longestTask(async () => {
      const buffer = new SeriesBuffer();
      let reads = 0;
      let after: number | undefined;
      for (;;) {
        const lower = after === undefined ? [RUN, NAME, -Infinity] : [RUN, NAME, after];
        const range = IDBKeyRange.bound(lower, [RUN, NAME, Infinity], after !== undefined, false);
        const rows = await new Promise<MetricRow[]>((resolve, reject) => {
          const request = idb
            .transaction('metrics', 'readonly')
            .objectStore('metrics')
            .getAll(range, POINT_PAGE);
          request.onsuccess = () => resolve(request.result as MetricRow[]);
          request.onerror = () => reject(request.error ?? new Error('read failed'));
        });
        reads++;
        buffer.append(rows);
        if (rows.length < POINT_PAGE) break;
        after = rows.at(-1)!.step;
      }
      return { points: buffer.length, reads, ms: performance.now() - start };
    });
    return { ...result, longestTaskMs };
  } finally {
    idb.close();
  }
}
