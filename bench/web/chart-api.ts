/** What the chart bench page offers the Playwright side, on `window.flowbenchCharts`. */

/** One trial of one side: the initial draw, then a run of flushes. */
export interface ChartTrial {
  /** ms from handing over the whole series to the first frame drawn with every point. */
  initialMs: number;
  /** ms per flush, from appending its points to the canvas drawn with them. */
  flushMs: number[];
}

/** One latency sample: a batch committed by the writer worker, then drawn by the chart. */
export interface WriteToPixelTrial {
  /** ms from each batch's commit (in the worker) to the chart drawing its last point. */
  latencyMs: number[];
  /** Points already in the series before the timed batches. */
  basePoints: number;
}

/** The live chart opening a long series already stored. */
export interface OpenStoredTrial {
  /** ms from mounting the chart to its first frame drawn with every point. */
  ms: number;
  /** The longest main-thread task over 50 ms meanwhile (Long Tasks API; 0 when none was). */
  longestTaskMs: number;
  /** Every long task's duration, in ms. */
  longTasksMs: number[];
}

export interface ChartBench {
  /** Our chart (`MetricChartView`, as the app uses it): `points` points, then `flushes` flushes of `perFlush`. */
  ours(points: number, flushes: number, perFlush: number): Promise<ChartTrial>;
  /** Bare uPlot, same size and data, every point handed to it as is. */
  bare(points: number, flushes: number, perFlush: number): Promise<ChartTrial>;
  /**
   * The live chart (`MetricChart`) of a series that a worker writes to
   * IndexedDB: `basePoints` written first (untimed), then `batches` batches
   * of `perBatch` points, `gapMs` apart, each timed from its commit to its drawing.
   */
  writeToPixel(
    basePoints: number,
    batches: number,
    perBatch: number,
    gapMs: number,
  ): Promise<WriteToPixelTrial>;
  /** The live chart (`MetricChart`) opened on a stored series of `points` points (written first, untimed, by the worker). */
  openStored(points: number): Promise<OpenStoredTrial>;
}

export const CHART_BENCH_GLOBAL = 'flowbenchCharts';

/** Messages between the chart page and its writer worker. */
export type WriterRequest =
  | { type: 'base'; runId: string; name: string; points: number }
  | { type: 'batch'; runId: string; name: string; from: number; points: number };

/** The worker's answer: the batch is committed, at `committedAt` (epoch ms, high resolution). */
export type WriterReply =
  | {
      committedAt: number;
      /** Points in the series after this write. */
      total: number;
    }
  | { error: string };
