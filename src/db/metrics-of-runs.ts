/**
 * Metric reads over many runs at once (a comparison of fifty, the
 * parallel-coordinates view): each read of all of them is one readonly
 * transaction, where a transaction a run had the store schedule each in
 * turn. The reads of one run are in `metrics.ts`.
 */
import { Dexie } from 'dexie';
import type { RunId } from '../core/run/record';
import type { MetricColumns, MetricPoint } from '../core/series/columns';
import {
  lastMetricKeyOfRun,
  metricColumnsAfter,
  metricNames,
  metricSeriesFirst,
  metricSeriesLast,
} from './metrics';
import type { FlowbenchDb } from './schema';

/**
 * `read` of each of `runIds`, in their order, all in one readonly
 * transaction: a view of many runs (fifty compared) waits for one
 * transaction, where a transaction a run had the store schedule each in turn.
 */
export function eachRunTogether<T>(
  db: FlowbenchDb,
  runIds: readonly RunId[],
  read: (runId: RunId) => Promise<T>,
): Promise<T[]> {
  if (runIds.length === 0) return Promise.resolve([]);
  return db.transaction('r', db.metrics, () => Promise.all(runIds.map(read)));
}

/** {@link metricNames} of each run, in the order of `runIds`, in one transaction. */
export function metricNamesOfRuns(db: FlowbenchDb, runIds: readonly RunId[]): Promise<string[][]> {
  return eachRunTogether(db, runIds, (id) => metricNames(db, id));
}

/** {@link lastMetricKeyOfRun} of each run, in the order of `runIds`, in one transaction. */
export function lastMetricKeysOfRuns(
  db: FlowbenchDb,
  runIds: readonly RunId[],
): Promise<([RunId, string, number] | undefined)[]> {
  return eachRunTogether(db, runIds, (id) => lastMetricKeyOfRun(db, id));
}

/** {@link metricSeriesLast} of series `name` of each run, in the order of `runIds`, in one transaction. */
export function metricSeriesLastOfRuns(
  db: FlowbenchDb,
  runIds: readonly RunId[],
  name: string,
): Promise<(MetricPoint | undefined)[]> {
  return eachRunTogether(db, runIds, (id) => metricSeriesLast(db, id, name));
}

/** {@link metricSeriesFirst} of series `name` of each run, in the order of `runIds`, in one transaction. */
export function metricSeriesFirstOfRuns(
  db: FlowbenchDb,
  runIds: readonly RunId[],
  name: string,
): Promise<(MetricPoint | undefined)[]> {
  return eachRunTogether(db, runIds, (id) => metricSeriesFirst(db, id, name));
}

/** A read of {@link metricColumnsAfter}, as {@link metricColumnsReader} takes it. */
export interface ColumnsRead {
  readonly runId: RunId;
  readonly name: string;
  readonly after: number | undefined;
  readonly limit: number;
}

/**
 * {@link metricColumnsAfter} for the live series of many runs: the reads
 * asked for in one task are made together, in one transaction (the fifty
 * series of a comparison each start their read at once). Each read is told
 * its own result or failure. A transaction lasts one such round, never a
 * whole long read, so a run's writes wait for no more than a round.
 */
export function metricColumnsReader(
  db: FlowbenchDb,
): (read: ColumnsRead) => Promise<MetricColumns> {
  let queued: {
    read: ColumnsRead;
    resolve: (columns: MetricColumns) => void;
    reject: (error: unknown) => void;
  }[] = [];
  const flush = () => {
    const round = queued;
    queued = [];
    // Its own transaction, whatever zone the first read was asked from.
    Dexie.ignoreTransaction(() =>
      db.transaction('r', db.metrics, () =>
        Promise.all(
          round.map(({ read: { runId, name, after, limit }, resolve, reject }) =>
            metricColumnsAfter(db, runId, name, after, limit).then(resolve, reject),
          ),
        ),
      ),
    ).catch((error: unknown) => {
      for (const { reject } of round) reject(error);
    });
  };
  return (read) =>
    new Promise<MetricColumns>((resolve, reject) => {
      if (queued.length === 0) queueMicrotask(flush);
      queued.push({ read, resolve, reject });
    });
}
