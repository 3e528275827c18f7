/**
 * Notices when the browser stops answering a run's writes.
 *
 * A write to IndexedDB can wait without failing: behind a long transaction
 * of another tab, or because the browser's storage has stalled (it did, in
 * Chromium, while onnxruntime ran on two threads; see `WASM_THREADS`). The
 * run then looks healthy while nothing of it is stored. The driver passes
 * every write of the record through `track`; when the oldest one has waited
 * `stallMs`, `onStall` says so, once, and `onResume` when writes answer again,
 * so the person learns that what the run records is held in memory and that
 * closing the tab now would lose it.
 */
import { ENGINE_TIMING_DEFAULTS } from '../../src/db/settings';

export interface StorageWatchOptions {
  now: () => number;
  /** Run `fire` after `ms`; returns a function that cancels it. */
  setTimer: (fire: () => void, ms: number) => () => void;
  /** How long the oldest write may wait before the watch calls it a stall. */
  stallMs?: number;
  /** The oldest write has waited `waitedMs` (at least `stallMs`). */
  onStall: (waitedMs: number) => void;
  /** Every write that stalled has answered (stored or failed). */
  onResume: () => void;
}

/** Waits this long are past the slowest healthy writes measured on a loaded 2-core machine (about 17 s). */
export const STORAGE_STALL_MS = ENGINE_TIMING_DEFAULTS.storageStallMs;

export class StorageWatch {
  private readonly pending = new Map<number, number>();
  private next = 0;
  private stalled = false;
  private cancelCheck: (() => void) | null = null;
  private readonly stallMs: number;

  constructor(private readonly options: StorageWatchOptions) {
    this.stallMs = options.stallMs ?? STORAGE_STALL_MS;
  }

  /** Watch `write` until it settles; returns it unchanged. */
  track<T>(write: Promise<T>): Promise<T> {
    const id = this.next++;
    this.pending.set(id, this.options.now());
    this.schedule();
    const settled = () => {
      this.pending.delete(id);
      this.check();
    };
    write.then(settled, settled);
    return write;
  }

  /** Stop watching (the run has ended); a stall reported is not resumed. */
  close(): void {
    this.cancelCheck?.();
    this.cancelCheck = null;
    this.pending.clear();
  }

  private schedule(): void {
    this.cancelCheck ??= this.options.setTimer(() => {
      this.cancelCheck = null;
      this.check();
      if (this.pending.size > 0) this.schedule();
    }, this.stallMs / 4);
  }

  private check(): void {
    const oldest = Math.min(...this.pending.values());
    const waited = this.pending.size > 0 ? this.options.now() - oldest : 0;
    if (!this.stalled && waited >= this.stallMs) {
      this.stalled = true;
      this.options.onStall(waited);
    } else if (this.stalled && waited < this.stallMs) {
      this.stalled = false;
      this.options.onResume();
    }
  }
}
