/**
 * A live chart's view of one stored series (one run, one metric): read once
 * in chunks, then followed by reading only what was committed after it.
 *
 * Why it may keep the points it read. The store is the one truth, and a
 * series in it only grows at its end while it exists: the run driver writes
 * each step once, batches one after another in step order; an import adds a
 * series whole; a delete removes it whole. So what the chart read earlier is
 * still exactly the head of what the store holds, and the new points are the
 * ones with a step past the last one held — a keyed range read of just those.
 * The one thing that breaks this is the series being deleted or replaced
 * (deleted, then imported again); then its first or last point no longer
 * matches what is held, or it ends before the last step held. `update` is
 * handed the store's first and last point each time, checks exactly that, and
 * on a mismatch drops everything held and reads the series again. No point
 * held is ever edited or kept past such a change, so the chart cannot drift.
 *
 * Why in pieces. Reading a series hands every point to the main thread in
 * one task; at a million points that task alone blocks the page for a few
 * hundred milliseconds. Pieces of some tens of thousands of points, each its
 * own read, let the page draw and answer input between them. The chunk adapts to the machine:
 * it doubles while a read takes well under `targetMs` (wall time, which also
 * counts the store's own work, so it errs on the small side) and halves when
 * one takes longer, so a busy machine gets smaller tasks. During a long read
 * a snapshot is published now and then, so the chart fills in as it goes.
 *
 * The reads themselves are injected (`SeriesSource`), so this runs under
 * Node in tests; one `update` runs at a time (the caller coalesces changes).
 */
import type { MetricColumns, MetricPoint, SeriesInput } from './columns';
import { SeriesBuffer } from './series-buffer';

/** The first and last point the store holds for the series now (both `undefined` when it has none). */
export interface SeriesEnds {
  readonly first: MetricPoint | undefined;
  readonly last: MetricPoint | undefined;
}

/** Reads of one stored series. */
export interface SeriesSource {
  /**
   * At most `limit` points with a step past `after` (from the start when
   * `undefined`), in step order, as points or as columns; fewer only when
   * the series has no more.
   */
  readAfter(after: number | undefined, limit: number): Promise<SeriesInput>;
}

export interface LiveSeriesOptions {
  /** Points in the first read; later reads adapt between `minChunk` and `maxChunk`. */
  chunk?: number;
  minChunk?: number;
  maxChunk?: number;
  /** The longest a read should take, in ms. */
  targetMs?: number;
  /** During a long read, the least time between two published snapshots. */
  publishEveryMs?: number;
  /** A clock in milliseconds (injected so tests need no real time). */
  now?: () => number;
}

/**
 * Points per read: the first, and the bounds it adapts within. The store
 * keeps a series in chunks of 2,048 points (typed columns), so a read of
 * 16,384 points is 8 rows whose columns are copied, not 16,384 objects: a
 * few milliseconds of the main thread. The floor is high because on a busy
 * machine a read's wall time is mostly waiting for the store, not work on
 * the page: tiny reads would only multiply the waits.
 */
export const seriesReadChunk = { first: 16_384, min: 8_192, max: 65_536, targetMs: 40 } as const;

export class LiveSeries {
  private buffer = new SeriesBuffer();
  private chunk: number;
  private readonly minChunk: number;
  private readonly maxChunk: number;
  private readonly targetMs: number;
  private readonly publishEveryMs: number;
  private readonly now: () => number;
  /** Reads done, counted for tests and the bench: a follow-up flush must cost one. */
  reads = 0;

  constructor(
    private readonly source: SeriesSource,
    options: LiveSeriesOptions = {},
  ) {
    this.minChunk = Math.max(1, options.minChunk ?? seriesReadChunk.min);
    this.maxChunk = Math.max(this.minChunk, options.maxChunk ?? seriesReadChunk.max);
    this.chunk = clamp(options.chunk ?? seriesReadChunk.first, this.minChunk, this.maxChunk);
    this.targetMs = options.targetMs ?? seriesReadChunk.targetMs;
    this.publishEveryMs = options.publishEveryMs ?? 250;
    this.now = options.now ?? (() => performance.now());
  }

  /** What is held now. */
  snapshot(): MetricColumns {
    return this.buffer.snapshot();
  }

  /**
   * Bring what is held up to the store, whose series now has `ends`: start
   * over if it is no longer the series held, then read every point past the
   * last one held, chunk by chunk. `progress` gets a snapshot now and then
   * during a long read; `closed` stops the read between chunks.
   */
  async update(
    ends: SeriesEnds,
    progress?: (series: MetricColumns) => void,
    closed: () => boolean = () => false,
  ): Promise<MetricColumns> {
    if (!this.stillHeld(ends)) this.buffer = new SeriesBuffer();
    let published = this.now();
    for (;;) {
      const after = this.buffer.lastStep;
      const chunk = this.chunk;
      const began = this.now();
      const points = await this.source.readAfter(after, chunk);
      this.reads++;
      if (closed()) break;
      this.buffer.append(points);
      if (points.length < chunk) break;
      this.adapt(this.now() - began);
      if (progress && this.now() - published >= this.publishEveryMs) {
        progress(this.buffer.snapshot());
        published = this.now();
      }
    }
    return this.buffer.snapshot();
  }

  /** The next chunk, from how long a full one took. */
  private adapt(tookMs: number): void {
    if (tookMs > this.targetMs) this.chunk = Math.max(this.minChunk, Math.floor(this.chunk / 2));
    else if (tookMs < this.targetMs / 2) this.chunk = Math.min(this.maxChunk, this.chunk * 2);
  }

  /** Whether the store's series still begins with everything held (see the file's comment). */
  private stillHeld({ first, last }: SeriesEnds): boolean {
    const held = this.buffer;
    if (held.length === 0) return true;
    if (!first || !last) return false;
    if (!samePoint(first, held.at(0))) return false;
    const lastStep = held.lastStep!;
    if (last.step < lastStep) return false;
    return last.step > lastStep || samePoint(last, held.at(held.length - 1));
  }
}

function clamp(x: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, Math.floor(x)));
}

/** Same step, value and time, bit for bit (NaN equals NaN, -0 differs from 0). */
function samePoint(a: MetricPoint, b: MetricPoint | undefined): boolean {
  return b !== undefined && a.step === b.step && Object.is(a.value, b.value) && a.ts === b.ts;
}
