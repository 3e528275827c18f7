/**
 * Live reads: a read that tells its watcher again whenever a write changes
 * what it read, in this tab or another (Dexie's `liveQuery` underneath).
 *
 * The db layer knows nothing of React, so a live read is a plain observable
 * (`subscribe` / `unsubscribe`); the UI turns it into component state with
 * one small hook. Trade-off: a live read re-runs the whole read on every
 * change that touches it, so it suits small reads; a series that grows while
 * it is watched is followed another way (see `metrics-live.ts`).
 */
import { liveQuery } from 'dexie';

/** What a watcher of a live read is told: each new result, or the error that ended the watch. */
export interface LiveObserver<T> {
  next?: (value: T) => void;
  error?: (error: unknown) => void;
}

/** A read that can be watched: tells `next` its result now and after every change to it. */
export interface Live<T> {
  subscribe(observer: LiveObserver<T>): { unsubscribe(): void };
}

/**
 * `read` as a live read. `read` must read through this layer's queries only
 * (and await nothing but them), so every table it reads is watched.
 */
export function live<T>(read: () => T | Promise<T>): Live<T> {
  return liveQuery(read);
}

/**
 * One live read shared by every watcher: opened by the first, closed when
 * the last leaves, and a watcher that comes while it is open is told the
 * value held at once. For a read several views watch at the same time (a
 * run's node outcomes: the canvas, the node timings, the timeline), which
 * each re-ran on every change before.
 */
export class SharedLive<T> implements Live<T> {
  private readonly watchers = new Set<LiveObserver<T>>();
  private read: { unsubscribe(): void } | null = null;
  private held: { value: T } | null = null;

  /** `closed`: told when the last watcher leaves (to forget this read). */
  constructor(
    private readonly open: () => Live<T>,
    private readonly closed: () => void = () => undefined,
  ) {}

  subscribe(observer: LiveObserver<T>): { unsubscribe(): void } {
    this.watchers.add(observer);
    if (this.read === null) this.read = this.start();
    else if (this.held) observer.next?.(this.held.value);
    return {
      unsubscribe: () => {
        if (!this.watchers.delete(observer) || this.watchers.size > 0) return;
        this.read?.unsubscribe();
        this.read = null;
        this.held = null;
        this.closed();
      },
    };
  }

  private start(): { unsubscribe(): void } {
    return this.open().subscribe({
      next: (value) => {
        this.held = { value };
        for (const watcher of [...this.watchers]) watcher.next?.(value);
      },
      error: (error) => {
        // The read ended: the next watcher to come opens another.
        this.read = null;
        this.held = null;
        for (const watcher of [...this.watchers]) watcher.error?.(error);
      },
    });
  }
}
