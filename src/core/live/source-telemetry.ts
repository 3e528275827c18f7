/**
 * The data engine's telemetry, made visible on the run: the engine and its
 * controllers report into this sink, and it turns their reports into what
 * the run records — every wait as an interval, refills and producer
 * lifecycle as log lines (one per generation, so a long run's log stays
 * readable), and counters as metric points on the `data.engine` node's
 * streaming ports, charted live beside the loss.
 *
 * Points are emitted when something happens (a generation lands, a batch is
 * consumed), not on a timer, so the sink keeps nothing running by itself;
 * rates are measured over windows of at least `RATE_WINDOW_MS` so a fast
 * consumer does not chart noise.
 */
import type { DataEngineStats } from '../data/data-engine';
import type { DataEvent, DataTelemetry, WaitInterval } from '../data/telemetry';

/** The `data.engine` node's telemetry ports. */
export const telemetryPorts = [
  'cache_fill',
  'produced_episodes',
  'episodes_per_second',
  'consumed_chunks',
  'chunks_per_second',
] as const;
export type TelemetryPort = (typeof telemetryPorts)[number];

/** Where the sink reports: the part of a node's context it uses. */
export interface TelemetryOutlet {
  emit(port: TelemetryPort, value: number): void;
  interval(kind: string, start: number, end: number): void;
  log(message: string): void;
}

const RATE_WINDOW_MS = 500;
const round = (x: number, digits = 3) => Number(x.toFixed(digits));

export class SourceTelemetry implements DataTelemetry {
  private stats: (() => DataEngineStats) | null = null;
  private closed = false;
  /** Producers that finished each pending generation. */
  private readonly finished = new Map<number, number[]>();
  private rateFrom: { at: number; chunks: number } | null = null;
  /** Epoch seconds when the source opened; log lines count from it. */
  private readonly openedAt: number;

  constructor(
    private readonly outlet: TelemetryOutlet,
    /** Epoch milliseconds. */
    private readonly now: () => number,
  ) {
    this.openedAt = now() / 1000;
  }

  /** Read counters from the engine this sink reports for (set once the engine exists). */
  attach(stats: () => DataEngineStats): void {
    this.stats = stats;
  }

  interval(interval: WaitInterval): void {
    if (!this.closed) this.outlet.interval(interval.kind, interval.start, interval.end);
  }

  event(event: DataEvent): void {
    if (this.closed) return;
    switch (event.type) {
      case 'refill_requested':
      case 'producer_started':
        return; // told with the generation's outcome, which carries the request time
      case 'producer_finished':
        this.finished.set(event.generation, [
          ...(this.finished.get(event.generation) ?? []),
          event.producer,
        ]);
        return;
      case 'producer_failed':
        this.outlet.log(
          `producer ${event.producer} failed on generation ${event.generation}: ${event.error}`,
        );
        return;
      case 'generation_failed':
        this.finished.delete(event.generation);
        this.outlet.log(`generation ${event.generation} failed: ${event.error}`);
        return;
      case 'generation_ready': {
        const seconds = event.at - event.requestedAt;
        const producers = this.finished.get(event.generation) ?? [];
        this.finished.delete(event.generation);
        this.outlet.log(
          `generation ${event.generation}: requested at +${round(event.requestedAt - this.openedAt)} s, ready ${round(seconds)} s later with ${event.episodes} episodes (producers ${producers.sort((a, b) => a - b).join(', ')} finished)`,
        );
        const stats = this.stats?.();
        if (stats) this.outlet.emit('produced_episodes', stats.producedEpisodes);
        if (seconds > 0) this.outlet.emit('episodes_per_second', event.episodes / seconds);
        this.emitFill();
        return;
      }
    }
  }

  /** A consumer took a batch: chart the chunks served so far, the fill, and the rate. */
  consumed(): void {
    const stats = this.stats?.();
    if (this.closed || !stats) return;
    this.outlet.emit('consumed_chunks', stats.servedChunks);
    this.outlet.emit('cache_fill', stats.unlockedRemainingChunks);
    const at = this.now();
    if (!this.rateFrom) {
      this.rateFrom = { at, chunks: stats.servedChunks };
      return;
    }
    const elapsed = at - this.rateFrom.at;
    if (elapsed < RATE_WINDOW_MS) return;
    this.outlet.emit(
      'chunks_per_second',
      ((stats.servedChunks - this.rateFrom.chunks) * 1000) / elapsed,
    );
    this.rateFrom = { at, chunks: stats.servedChunks };
  }

  /** The run ended: report nothing more. */
  close(): void {
    this.closed = true;
  }

  private emitFill(): void {
    const stats = this.stats?.();
    if (stats) this.outlet.emit('cache_fill', stats.unlockedRemainingChunks);
  }
}
