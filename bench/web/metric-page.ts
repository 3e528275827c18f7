/**
 * The metric write path, in the page: points go through a run's
 * `MetricBatcher` into its `RunMetricWriter` (chunks of the series), exactly
 * as the run driver wires them, with the driver's default batch size and delay; the
 * reference writes the same rows into the same object store with raw
 * IndexedDB `put`s in one transaction — what the store can take at best.
 */
import type { MetricRow, RunId } from '../../src/core/run/record';
import { deleteAllMetrics } from '../../src/db/metrics';
import { FlowbenchDb } from '../../src/db/schema';
import { METRIC_BENCH_GLOBAL, type MetricBench, type MetricPathTrial } from './api';
import { timedMetricPath } from './metric-path';
import {
  readChunkSeries,
  readPointSeries,
  resetSeriesStores,
  storageUsage,
  writeChunkSeries,
  writePointSeries,
} from './series-store';

const db = new FlowbenchDb('flowbench-bench');
/** A few series, as a training node emits them side by side. */
const names = ['train.loss', 'train.accuracy', 'eval.loss', 'eval.accuracy'];
const newRunId = () => crypto.randomUUID() as RunId;

async function metricPath(points: number): Promise<MetricPathTrial> {
  const path = timedMetricPath(db, newRunId(), () => Date.now());
  const start = performance.now();
  for (let i = 0; i < points; i++) path.batcher.push(names[i % names.length]!, Math.sin(i));
  await path.finish();
  return { ms: performance.now() - start, flushMs: path.flushMs };
}

/** The rows the batcher would have made for `points` pushes. */
function rowsFor(points: number): MetricRow[] {
  const runId = newRunId();
  const ts = Date.now() / 1000;
  return Array.from({ length: points }, (_, i) => ({
    runId,
    name: names[i % names.length]!,
    step: Math.floor(i / names.length),
    value: Math.sin(i),
    ts,
  }));
}

/** `put` `rows` with raw IndexedDB in one transaction; wall ms to its commit. */
async function putInOneTransaction(rows: readonly MetricRow[]): Promise<number> {
  const idb = db.backendDB();
  const start = performance.now();
  await new Promise<void>((resolve, reject) => {
    const tx = idb.transaction('metrics', 'readwrite');
    const store = tx.objectStore('metrics');
    for (const row of rows) store.put(row);
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error ?? new Error('transaction failed'));
    tx.onabort = () => reject(tx.error ?? new Error('transaction aborted'));
  });
  return performance.now() - start;
}

function rawPut(points: number): Promise<number> {
  return putInOneTransaction(rowsFor(points));
}

async function rawBatches(points: number, batch: number): Promise<number[]> {
  const rows = rowsFor(points);
  const ms: number[] = [];
  for (let i = 0; i < rows.length; i += batch)
    ms.push(await putInOneTransaction(rows.slice(i, i + batch)));
  return ms;
}

async function clear(): Promise<void> {
  await deleteAllMetrics(db);
}

await db.delete();
await db.open();
const bench: MetricBench = {
  metricPath,
  rawPut,
  rawBatches,
  clear,
  resetSeriesStores,
  storageUsage,
  writeChunkSeries,
  writePointSeries,
  readChunkSeries,
  readPointSeries,
};
Object.assign(window, { [METRIC_BENCH_GLOBAL]: bench });
