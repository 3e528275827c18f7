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

/**
 * Shared live reads by key (a run's id): the first watcher of a key opens its
 * `SharedLive`, and it is forgotten when its last watcher leaves.
 */
export class SharedLives<K, T> {
  private readonly reads = new Map<K, SharedLive<T>>();

  constructor(private readonly open: (key: K) => Live<T>) {}

  of(key: K): Live<T> {
    let read = this.reads.get(key);
    if (!read) {
      read = new SharedLive(
        () => this.open(key),
        () => this.reads.delete(key),
      );
      this.reads.set(key, read);
    }
    return read;
  }

  /** Whether some view watches `key` now. */
  watched(key: K): boolean {
    return this.reads.has(key);
  }
}

/** What `make` makes of each database, made at its first use and kept while the database is. */
export function perDb<D extends object, T>(make: (db: D) => T): (db: D) => T {
  const made = new WeakMap<D, T>();
  return (db) => {
    let value = made.get(db);
    if (value === undefined) {
      value = make(db);
      made.set(db, value);
    }
    return value;
  };
}

/** The `SharedLives` of each database (`open` reads `key` from `db`), made at its first use. */
export function sharedLivesPerDb<D extends object, K, T>(
  open: (db: D, key: K) => Live<T>,
): (db: D) => SharedLives<K, T> {
  return perDb((db) => new SharedLives<K, T>((key) => open(db, key)));
}

/**
 * Tells `tell` the latest value it is given, at most once a spell (`spellOf`
 * of the value told last): a value given after a quiet spell is told at
 * once; values given within the spell after a telling are told once, the
 * last of them, when the spell ends. For a read that changes many times a
 * second (the run list during a sweep), so every view watching it draws a
 * few times a second, not at every write, and a single change still shows
 * at once.
 */
export class Paced<T> {
  private toldAt = -Infinity;
  private spell = 0;
  private due: { value: T; timer: ReturnType<typeof setTimeout> } | null = null;

  constructor(
    private readonly spellOf: (value: T) => number,
    private readonly tell: (value: T) => void,
    private readonly now: () => number = Date.now,
  ) {}

  give(value: T): void {
    if (this.due) {
      this.due.value = value;
      return;
    }
    const wait = this.toldAt + this.spell - this.now();
    if (wait <= 0) {
      this.tellNow(value);
      return;
    }
    this.due = {
      value,
      timer: setTimeout(() => {
        const { value } = this.due!;
        this.due = null;
        this.tellNow(value);
      }, wait),
    };
  }

  /** Forget a value not yet told. */
  cancel(): void {
    if (this.due) clearTimeout(this.due.timer);
    this.due = null;
  }

  private tellNow(value: T): void {
    this.toldAt = this.now();
    this.spell = this.spellOf(value);
    this.tell(value);
  }
}
