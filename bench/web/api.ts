/** What the metric bench page offers the Playwright side, on `window.flowbenchMetrics`. */

/** One trial of the run's metric path. */
export interface MetricPathTrial {
  /** Wall ms from the first push to the final flush resolving. */
  ms: number;
  /** Wall ms of each batch write (one transaction of the run's metric writer), in order. */
  flushMs: number[];
}

/** A long series written into one of the two stores. */
export interface SeriesWrite {
  /** Wall ms from the first point to the last write's commit. */
  ms: number;
  /** Wall ms of each write transaction, in order. */
  flushMs: number[];
}

/** A long series read whole into the chart's columns. */
export interface SeriesRead {
  ms: number;
  points: number;
  /** Reads (IndexedDB requests) it took. */
  reads: number;
  /** The longest main-thread task over 50 ms while it read (0 when none was). */
  longestTaskMs: number;
}

export interface MetricBench {
  /** Push `points` points through a fresh run's MetricBatcher → its `RunMetricWriter`. */
  metricPath(points: number): Promise<MetricPathTrial>;
  /** `put` the same rows into the same store with raw IndexedDB, one transaction; wall ms. */
  rawPut(points: number): Promise<number>;
  /**
   * `put` the same rows with raw IndexedDB in transactions of `batch` rows,
   * one after another, as the metric path batches them; wall ms of each.
   */
  rawBatches(points: number, batch: number): Promise<number[]>;
  /** Empty the metrics store (between trials, untimed). */
  clear(): Promise<void>;
  /** Delete the two series stores below. */
  resetSeriesStores(): Promise<void>;
  /** The origin's storage usage (`navigator.storage.estimate()`), `settleMs` after a write, taken in by a commit. */
  storageUsage(settleMs: number): Promise<number>;
  /** One series of `points` points through the metric path into the chunk store. */
  writeChunkSeries(points: number): Promise<SeriesWrite>;
  /** The same series, one row per point (database version 5's layout). */
  writePointSeries(points: number): Promise<SeriesWrite>;
  /** That series read whole from the chunk store, as the chart opens it. */
  readChunkSeries(): Promise<SeriesRead>;
  /** That series read whole from the per-point store, 8,000 rows a read. */
  readPointSeries(): Promise<SeriesRead>;
}

export const METRIC_BENCH_GLOBAL = 'flowbenchMetrics';
