/**
 * A clock for tests: time moves only when the test moves it. `drive` runs a
 * promise to completion by jumping straight to the next sleeper whenever
 * nothing else can run, so a 30-second timeout takes no wall time, and a
 * promise that waits on nothing is reported as a deadlock instead of hanging.
 */
import { runCancelled } from '../runtime/cancel';
import type { Clock } from './clock';

interface Sleeper {
  at: number;
  seq: number;
  wake: () => void;
}

type Schedule = (run: () => void) => void;
const schedule: Schedule =
  (globalThis as { setImmediate?: Schedule }).setImmediate ?? ((run) => setTimeout(run, 0));

/** Let every queued promise callback run (a macrotask turn; no time passes on the fake clock). */
export const settle = () => new Promise<void>((resolve) => schedule(resolve));

export class FakeClock implements Clock {
  private time: number;
  private seq = 0;
  private sleepers: Sleeper[] = [];

  constructor(start = 1_700_000_000_000) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(runCancelled());
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.sleepers = this.sleepers.filter((s) => s !== sleeper);
        reject(runCancelled());
      };
      const sleeper: Sleeper = {
        at: this.time + Math.max(0, ms),
        seq: this.seq++,
        wake: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.sleepers.push(sleeper);
      this.sleepers.sort((x, y) => x.at - y.at || x.seq - y.seq);
    });
  }

  /** Sleeps not yet woken. */
  get pendingSleeps(): number {
    return this.sleepers.length;
  }

  /** Move time forward by `ms`, waking the sleepers due on the way in order. */
  async advance(ms: number): Promise<void> {
    const target = this.time + ms;
    await settle();
    for (let next = this.sleepers[0]; next && next.at <= target; next = this.sleepers[0]) {
      this.wakeNext();
      await settle();
    }
    this.time = target;
    await settle();
  }

  /** Run `promise` to completion, jumping time to the next sleeper whenever nothing else can run. */
  async drive<T>(promise: Promise<T>): Promise<T> {
    const state = { done: false };
    promise.then(
      () => (state.done = true),
      () => (state.done = true),
    );
    for (;;) {
      await settle();
      if (state.done) return promise;
      if (this.sleepers.length === 0)
        throw new Error('FakeClock.drive: the promise is pending and nothing is asleep');
      this.wakeNext();
    }
  }

  private wakeNext(): void {
    const next = this.sleepers.shift();
    if (!next) return;
    this.time = Math.max(this.time, next.at);
    next.wake();
  }
}
