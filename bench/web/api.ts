/** What the metric bench page offers the Playwright side, on `window.flowbenchMetrics`. */

/** One trial of the run's metric path. */
export interface MetricPathTrial {
  /** Wall ms from the first push to the final flush resolving. */
  ms: number;
  /** Wall ms of each batch write (one `putMetrics` transaction), in order. */
  flushMs: number[];
}

export interface MetricBench {
  /** Push `points` points through a fresh run's MetricBatcher → `putMetrics`. */
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
}

export const METRIC_BENCH_GLOBAL = 'flowbenchMetrics';
