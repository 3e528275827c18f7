/**
 * Reads for live charts: a metric series a slice at a time, its two ends,
 * and a run's wait intervals. Every read of a series is a keyed range on
 * `[runId+name+step]`, so reading the points after step s costs what those
 * points cost, however long the series already is.
 */
import { Dexie } from 'dexie';
import type { IntervalRow, MetricRow, RunId } from '../core/run/record';
import type { SeriesEnds } from '../core/series/live-series';
import type { FlowbenchDb } from './schema';

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
 * live query of it wakes on every metric point the run writes.
 */
export function lastMetricOfRun(db: FlowbenchDb, runId: RunId): Promise<MetricRow | undefined> {
  return db.metrics
    .where('[runId+name+step]')
    .between([runId, Dexie.minKey, Dexie.minKey], [runId, Dexie.maxKey], true, true)
    .last();
}

/** A run's wait intervals, in the order they were recorded. */
export async function runIntervals(db: FlowbenchDb, runId: RunId): Promise<IntervalRow[]> {
  const rows = await db.intervals.where('runId').equals(runId).toArray();
  return rows.map(({ id: _id, ...interval }) => interval);
}
