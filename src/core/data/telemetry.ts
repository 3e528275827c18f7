/**
 * What the data engine tells the run: every wait as an interval, and every
 * refill and producer lifecycle event, through an injected sink. The run
 * record keeps them so the run view can chart waits beside the loss; a
 * controller that waits silently would make a slow run indistinguishable from
 * a starved one. Times are epoch seconds, like a metric point's `ts`.
 */

export const waitKinds = ['data_wait', 'quota_wait', 'usage_throttle'] as const;
/**
 * `data_wait`: waiting for data to exist (a generation, a sample);
 * `quota_wait`: data exists but a batch's quota is not unlocked yet;
 * `usage_throttle`: held back to the planned rate.
 */
export type WaitKind = (typeof waitKinds)[number];

export interface WaitInterval {
  kind: WaitKind;
  /** Epoch seconds. */
  start: number;
  /** Epoch seconds. */
  end: number;
}

/** Refills and producer lifecycle; `at` in epoch seconds. */
export type DataEvent =
  | { type: 'refill_requested'; generation: number; at: number }
  | {
      type: 'generation_ready';
      generation: number;
      requestedAt: number;
      at: number;
      episodes: number;
    }
  | { type: 'generation_failed'; generation: number; at: number; error: string }
  | { type: 'producer_started'; producer: number; generation: number; at: number }
  | {
      type: 'producer_finished';
      producer: number;
      generation: number;
      at: number;
      episodes: number;
    }
  | { type: 'producer_failed'; producer: number; generation: number; at: number; error: string };

/** Where the engine and its controller report. */
export interface DataTelemetry {
  interval(interval: WaitInterval): void;
  event(event: DataEvent): void;
}

/** A sink that keeps everything in memory, in order (tests; a worker that forwards in batches). */
export class TelemetryLog implements DataTelemetry {
  readonly intervals: WaitInterval[] = [];
  readonly events: DataEvent[] = [];
  interval(interval: WaitInterval): void {
    this.intervals.push(interval);
  }
  event(event: DataEvent): void {
    this.events.push(event);
  }
}

/** A sink that drops everything. */
export const noTelemetry: DataTelemetry = {
  interval: () => undefined,
  event: () => undefined,
};
