/**
 * The metric path of a run: every number a node emits becomes a point
 * `[step, value, ts]`, where `step` counts that metric's emissions. Points are
 * written in batches (so many points, or so long, whichever comes first)
 * because a transaction per point would cap a run at a few thousand points a
 * second; the cost is that a crash loses at most the last unwritten batch.
 * Batches are written one after another, in order, and rows are upserted on
 * (run, name, step), so a retried batch can never duplicate a point.
 */
import type { MetricRow, RunId } from './record';

export interface MetricBatcherOptions {
  runId: RunId;
  write: (rows: MetricRow[]) => Promise<void>;
  /** Epoch milliseconds. */
  now: () => number;
  /** Run `fire` after `ms`; returns a function that cancels it. */
  setTimer: (fire: () => void, ms: number) => () => void;
  /** A write failed; later pushes are dropped and `flush` rejects with it. */
  onError: (error: unknown) => void;
  maxPoints?: number;
  maxDelayMs?: number;
}

/**
 * A batch is written when it holds this many points or is this old. The
 * store keeps a series in chunks of 2,048 points, so a flush costs a row or
 * two per series whatever its size (it fills the series' open tail chunk):
 * a batch of 1,024 points commits about as fast as one of 125 did when each
 * point was a row, and the write path runs an order of magnitude faster
 * than one row per point. The price is what a crash may lose: at most the
 * unflushed batch, so at most this many points or this much time of them.
 * See `npm run bench`.
 */
export const metricBatchDefaults = { maxPoints: 1024, maxDelayMs: 500 } as const;

export class MetricBatcher {
  private readonly steps = new Map<string, number>();
  private buffer: MetricRow[] = [];
  private writing: Promise<void> = Promise.resolve();
  private cancelTimer: (() => void) | null = null;
  private failure: unknown = null;
  private readonly maxPoints: number;
  private readonly maxDelayMs: number;

  constructor(private readonly options: MetricBatcherOptions) {
    this.maxPoints = options.maxPoints ?? metricBatchDefaults.maxPoints;
    this.maxDelayMs = options.maxDelayMs ?? metricBatchDefaults.maxDelayMs;
  }

  /** Record one emission of `name`; returns the point it became. */
  push(name: string, value: number): MetricRow {
    const step = this.steps.get(name) ?? 0;
    this.steps.set(name, step + 1);
    const row: MetricRow = {
      runId: this.options.runId,
      name,
      step,
      value,
      ts: this.options.now() / 1000,
    };
    if (this.failure !== null) return row;
    this.buffer.push(row);
    if (this.buffer.length >= this.maxPoints) void this.flush().catch(() => undefined);
    else
      this.cancelTimer ??= this.options.setTimer(
        () => void this.flush().catch(() => undefined),
        this.maxDelayMs,
      );
    return row;
  }

  /** Points recorded so far for each metric. */
  counts(): ReadonlyMap<string, number> {
    return this.steps;
  }

  /** Write everything buffered; resolves when all earlier batches are written. */
  flush(): Promise<void> {
    this.cancelTimer?.();
    this.cancelTimer = null;
    const batch = this.buffer;
    this.buffer = [];
    this.writing = this.writing.then(async () => {
      if (this.failure !== null) throw this.failure as Error;
      if (batch.length === 0) return;
      try {
        await this.options.write(batch);
      } catch (error) {
        this.failure = error;
        this.options.onError(error);
        throw error;
      }
    });
    return this.writing;
  }
}
