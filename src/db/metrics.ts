/**
 * Metric points: every read and write of the metrics table.
 *
 * Every read of a series is a keyed range on `[runId+name+step]`, so reading
 * the points after step s costs what those points cost, however long the
 * series already is; the live views of them are in `metrics-live.ts`.
 */
import { Dexie } from 'dexie';
import type { MetricRow, RunId } from '../core/run/record';
import type { SeriesEnds } from '../core/series/live-series';
import type { FlowbenchDb } from './schema';

/** Write a batch of points (the run driver's flush); a point already stored is replaced. */
export async function putMetrics(db: FlowbenchDb, rows: readonly MetricRow[]): Promise<void> {
  await db.metrics.bulkPut(rows);
}

/** Add points that must not be stored yet (an import, inside its transaction). */
export async function addMetrics(db: FlowbenchDb, rows: readonly MetricRow[]): Promise<void> {
  await db.metrics.bulkAdd(rows);
}

/** Every point of a run, in (name, step) order. */
export function metricsOfRun(db: FlowbenchDb, runId: RunId): Promise<MetricRow[]> {
  return db.metrics.where('runId').equals(runId).toArray();
}

/** Delete every point of every run (the benchmarks start each trial empty). */
export async function deleteAllMetrics(db: FlowbenchDb): Promise<void> {
  await db.metrics.clear();
}

/** Delete every point of the runs `ids`. */
export async function deleteMetricsOfRuns(db: FlowbenchDb, ids: readonly RunId[]): Promise<void> {
  await db.metrics.where('runId').anyOf(ids).delete();
}

/**
 * Names of the metrics a run has points for, sorted, found by skipping from
 * one name to the next (one cursor step per name) instead of walking every
 * point's key: a live run writes while this runs, and a long walk would be
 * aborted by each write before it finished.
 */
export async function metricNames(db: FlowbenchDb, runId: RunId): Promise<string[]> {
  const names: string[] = [];
  let from: [RunId, unknown, unknown] = [runId, Dexie.minKey, Dexie.minKey];
  for (;;) {
    const next = await db.metrics
      .where('[runId+name+step]')
      // One `Dexie.maxKey` only: the same array twice in a key is not a valid IndexedDB key.
      .between(from, [runId, Dexie.maxKey], false, true)
      .first();
    if (!next) return names;
    names.push(next.name);
    from = [runId, next.name, Dexie.maxKey];
  }
}

/** One metric series of a run, in step order. */
export function metricSeries(db: FlowbenchDb, runId: RunId, name: string): Promise<MetricRow[]> {
  return db.metrics
    .where('[runId+name+step]')
    .between([runId, name, Dexie.minKey], [runId, name, Dexie.maxKey])
    .toArray();
}

/** At most `limit` points of a series with a step past `after` (from its start when `undefined`), in step order. */
export function metricPointsAfter(
  db: FlowbenchDb,
  runId: RunId,
  name: string,
  after: number | undefined,
  limit: number,
): Promise<MetricRow[]> {
  const from = after === undefined ? Dexie.minKey : after;
  return db.metrics
    .where('[runId+name+step]')
    .between([runId, name, from], [runId, name, Dexie.maxKey], after === undefined, true)
    .limit(limit)
    .toArray();
}

/** The first and last point of a series: one cursor step each, however long it is. */
export async function metricSeriesEnds(
  db: FlowbenchDb,
  runId: RunId,
  name: string,
): Promise<SeriesEnds> {
  const range = () =>
    db.metrics
      .where('[runId+name+step]')
      .between([runId, name, Dexie.minKey], [runId, name, Dexie.maxKey]);
  const [first, last] = await Promise.all([range().first(), range().last()]);
  return { first, last };
}

/**
 * A run's last metric point in (name, step) order: one cursor step, and a
 * live read of it wakes on every metric point the run writes.
 */
export function lastMetricOfRun(db: FlowbenchDb, runId: RunId): Promise<MetricRow | undefined> {
  return db.metrics
    .where('[runId+name+step]')
    .between([runId, Dexie.minKey, Dexie.minKey], [runId, Dexie.maxKey], true, true)
    .last();
}
