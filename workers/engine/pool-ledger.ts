/**
 * One budget for the engines of every tab: the engine's side of the pool
 * ledger (`core/programs/ledger.ts`), over the bookings table
 * (`db/pool-bookings.ts`).
 *
 * Idea: an engine has an id of its own and holds a Web Lock named after it
 * for as long as it lives, so other engines can tell it is alive however
 * starved its timers are; its bookings also carry a lease it renews every
 * `leaseMs / 5`. The renewal is the engine's heartbeat: it writes when the
 * engine last moved on each backend (a unit ran or runs, a hold came or
 * went) and reads back what the other engines hold, which the pools show
 * and admit against. A release tells the other engines at once (a
 * broadcast), so one that waits for those bytes looks again without waiting
 * for its next renewal. Trade-off: a view of the others can be a renewal
 * old; it only decides whether to ask, since every booking is decided by
 * the transaction, against what is stored.
 */
import type { BookingRequest, ExternalBooking, PoolLedger } from '../../src/core/programs';
import type { Backend } from '../../src/core/runtime/tensor-runtime';
import {
  bookIfRoom,
  releaseBooking,
  renewBookings,
  type Liveness,
  type PoolBookingRow,
} from '../../src/db/pool-bookings';
import type { FlowbenchDb } from '../../src/db/schema';

/** The Web Lock an engine holds for its whole life. */
export const engineLockName = (engine: string): string => `flowbench-engine/${engine}`;

/** The engines whose lock is held, from the names of the locks held. */
export function enginesOfLocks(names: readonly (string | undefined)[]): Set<string> {
  const prefix = engineLockName('');
  return new Set(
    names.flatMap((name) => (name?.startsWith(prefix) === true ? [name.slice(prefix.length)] : [])),
  );
}

export interface SharedBudgetOptions {
  readonly db: FlowbenchDb;
  /** This engine's id; default a random one. */
  readonly engine?: string;
  readonly now: () => number;
  /** The engines that hold their lock now (`enginesOfLocks` over `navigator.locks.query()`). */
  readonly liveEngines: () => Promise<ReadonlySet<string>>;
  readonly setTimer: (fire: () => void, ms: number) => () => void;
  /** How long a booking counts without its engine's lock; default 10 s. */
  readonly leaseMs?: number;
  /**
   * How long another engine may go without moving before a request stuck
   * behind its bookings may call it a deadlock; default 30 s (a unit that
   * blocks the other engine's thread must not pass for one).
   */
  readonly quietMs?: number;
  /** Tells the other engines that bookings were given back (a broadcast); default nobody. */
  readonly announce?: () => void;
}

/** The engine's share of the budget on every backend; see the module comment. */
export class SharedBudget {
  readonly engine: string;
  private readonly ledgers = new Map<Backend, BackendLedger>();
  private readonly leaseMs: number;
  private stopTimer: (() => void) | null = null;
  private n = 0;

  constructor(private readonly options: SharedBudgetOptions) {
    this.engine = options.engine ?? crypto.randomUUID();
    this.leaseMs = options.leaseMs ?? 10_000;
  }

  /** The ledger of `backend`'s pool. */
  ledger(backend: Backend): PoolLedger {
    let ledger = this.ledgers.get(backend);
    if (ledger === undefined) {
      ledger = new BackendLedger(backend, this, this.options.quietMs ?? 30_000);
      this.ledgers.set(backend, ledger);
    }
    return ledger;
  }

  /** Renews now and then every `leaseMs / 5`, until `stop`. */
  start(): void {
    const renew = () => {
      void this.renew().catch(() => undefined);
      this.stopTimer = this.options.setTimer(renew, this.leaseMs / 5);
    };
    renew();
  }

  stop(): void {
    this.stopTimer?.();
    this.stopTimer = null;
  }

  /** Renews this engine's bookings and reads what the others hold (also on another's broadcast). */
  async renew(): Promise<void> {
    const now = this.options.now();
    const activeAt: Partial<Record<Backend, number>> = {};
    for (const [backend, ledger] of this.ledgers) if (ledger.takeMoved()) activeAt[backend] = now;
    const others = await renewBookings(
      this.options.db,
      this.engine,
      { leaseUntil: now + this.leaseMs, activeAt },
      await this.liveness(),
    );
    for (const [backend, ledger] of this.ledgers)
      ledger.see(others.filter((row) => row.backend === backend));
  }

  /** @internal A booking row of this engine. */
  row(backend: Backend, request: BookingRequest): PoolBookingRow {
    const now = this.options.now();
    return {
      ...request,
      id: `${this.engine}/${++this.n}`,
      engine: this.engine,
      backend,
      leaseUntil: now + this.leaseMs,
      activeAt: now,
    };
  }

  /** @internal */
  async liveness(): Promise<Liveness> {
    const live = await this.options.liveEngines();
    return { now: this.options.now(), live };
  }

  /** @internal */
  get db(): FlowbenchDb {
    return this.options.db;
  }

  /** @internal */
  now(): number {
    return this.options.now();
  }

  /** @internal */
  announce(): void {
    this.options.announce?.();
  }
}

/** One backend's ledger of a `SharedBudget`. */
class BackendLedger implements PoolLedger {
  others: readonly (ExternalBooking & { readonly activeAt: number })[] = [];
  version = 0;
  private readonly mine = new Set<string>();
  private waiters: (() => void)[] = [];
  private movedSinceRenew = false;
  private busy = false;

  constructor(
    private readonly backend: Backend,
    private readonly budget: SharedBudget,
    private readonly quietMs: number,
  ) {}

  async book(request: BookingRequest, budget: number): Promise<string | null> {
    const row = this.budget.row(this.backend, request);
    const answer = await bookIfRoom(this.budget.db, row, budget, await this.budget.liveness());
    this.see(answer.others);
    if (!answer.booked) return null;
    this.mine.add(row.id);
    this.movedSinceRenew = true;
    return row.id;
  }

  release(id: string): void {
    if (!this.mine.delete(id)) return;
    this.movedSinceRenew = true;
    void releaseBooking(this.budget.db, id).then(
      () => this.budget.announce(),
      // Left behind, it expires with this engine's lease once the engine is gone.
      () => undefined,
    );
  }

  nextChange(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  othersActive(): boolean {
    const since = this.budget.now() - this.quietMs;
    return this.others.some((b) => b.activeAt >= since);
  }

  moved(busy: boolean): void {
    this.movedSinceRenew = true;
    this.busy = busy;
  }

  /** Whether this engine moved on the backend since the last renewal (or a unit runs now). */
  takeMoved(): boolean {
    const moved = this.movedSinceRenew || this.busy;
    this.movedSinceRenew = false;
    return moved;
  }

  /** Takes a fresh read of the other engines' bookings; a change wakes whoever waits for one. */
  see(rows: readonly PoolBookingRow[]): void {
    const others = rows.map((r) => ({
      engine: r.engine,
      kind: r.kind,
      bytes: r.bytes,
      holder: r.holder,
      label: r.label,
      run: r.run,
      node: r.node,
      activeAt: r.activeAt,
    }));
    const key = (list: readonly ExternalBooking[]) =>
      JSON.stringify(list.map((b) => [b.engine, b.holder, b.kind, b.bytes, b.label]));
    const changed = key(others) !== key(this.others);
    this.others = others;
    if (!changed) return;
    this.version++;
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}
