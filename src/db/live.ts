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
