/**
 * The device memory pool: a byte budget and who holds what of it.
 *
 * Idea: the pool is bookkeeping, not an allocator. onnxruntime allocates the
 * real buffers; the pool decides whether a model may load, a loop may start
 * or a step may run, so that everything admitted fits the budget together.
 * Three kinds of holds make up what the UI shows: resident models (held while
 * the runner lives), reserved loop state (weights and optimizer state, held
 * from a loop's first unit to its last) and in-use step activations (held for
 * one unit). Holders are identities, so one pool can serve several runners
 * (runs) in one engine. A pool with a ledger shares its budget with the
 * pools of other engines (tabs): every hold that takes bytes is booked there
 * first (`hold`), and what the others booked is not free here (see
 * `ledger.ts`). Trade-off: the bytes are estimates from graph shapes, so the
 * budget should leave room for the runtime's own overhead.
 */
import type { ExternalBooking, HoldKind, PoolLedger } from './ledger.ts';

export type { HoldKind };

/** Who holds bytes: a request or a resident model. Compared by identity. */
export interface Holder {
  /** Shown to people: a request id or a model's label. */
  readonly name: string;
  /** The run and node it works for, told to other engines with its bookings. */
  readonly run?: string;
  readonly node?: string;
}

/** Bytes one holder holds for one purpose. */
export interface Hold {
  readonly holder: Holder;
  readonly kind: HoldKind;
  readonly bytes: number;
  /** What the bytes are for, e.g. "train: weights and optimizer state". */
  readonly label: string;
  /** A hold drawn from another's bytes (a loop's unit, from the step peak its loop booked). */
  readonly within?: Hold;
}

/** Why a holder waits: how many bytes, for what. */
export interface Wait {
  readonly bytes: number;
  readonly label: string;
}

/** The pool at one moment, as plain data for the UI. */
export interface PoolSnapshot {
  readonly budget: number;
  /** Bytes held by resident models. */
  readonly models: number;
  /** Bytes reserved by running loops (weights, optimizer state). */
  readonly reserved: number;
  /** Bytes of step activations admitted right now. */
  readonly inUse: number;
  readonly free: number;
  readonly residentModels: readonly { readonly name: string; readonly bytes: number }[];
  readonly holds: readonly {
    readonly holder: string;
    readonly kind: HoldKind;
    readonly bytes: number;
    readonly label: string;
  }[];
  readonly waiting: readonly {
    readonly holder: string;
    readonly bytes: number;
    readonly label: string;
    /** Bytes it already holds while it waits. */
    readonly holding: number;
  }[];
  /** Bytes other engines (tabs) booked on this budget, as last read. */
  readonly others: number;
  /** Their bookings, as last read. */
  readonly otherBookings: readonly ExternalBooking[];
}

/** `412 MB`, `4.2 KB`, `96 B`: decimal units, three significant digits. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  const shown = unit === 0 ? String(Math.round(value)) : String(Number(value.toPrecision(3)));
  return `${shown} ${units[unit] ?? 'B'}`;
}

/** A byte budget for the device and the holds on it. */
export class DeviceMemoryPool {
  private readonly holds = new Set<Hold>();
  /** The ledger's id of each hold booked there. */
  private readonly bookings = new Map<Hold, string>();
  private readonly waits = new Map<Holder, Wait>();
  private changes = 0;
  private changeWaiters: (() => void)[] = [];
  /** Holds drawn from another's bytes: while there are none, a release looks for none. */
  private withins = 0;
  /** Counts every change of `waits`. */
  private waitsVersion = 0;
  /** The last snapshot and what it was made of (see `snapshot`). */
  private lastSnapshot: {
    readonly holds: readonly Hold[];
    readonly waits: number;
    readonly others: number;
    readonly snapshot: PoolSnapshot;
  } | null = null;

  /**
   * @param budget bytes the device may hold for Flowbench at once.
   * @param ledger where engines that share the budget book it; none: this pool has it alone.
   */
  constructor(
    readonly budget: number,
    private readonly ledger: PoolLedger | null = null,
  ) {
    if (!Number.isFinite(budget) || budget < 0)
      throw new RangeError(`pool budget must be a non-negative number of bytes, got ${budget}`);
  }

  /** Whether other engines share the budget: holds of bytes go through `hold`. */
  get shared(): boolean {
    return this.ledger !== null;
  }

  /** Bytes held in all (a hold within another counts once, in the other). */
  get used(): number {
    let sum = 0;
    for (const h of this.holds) if (h.within === undefined) sum += h.bytes;
    return sum;
  }

  /** Bytes other engines booked, as last read. */
  get others(): number {
    if (this.ledger === null) return 0;
    let sum = 0;
    for (const b of this.ledger.others) sum += b.bytes;
    return sum;
  }

  get free(): number {
    return this.budget - this.used - this.others;
  }

  /** Counts every hold and release, here and by other engines; unchanged means nobody moved. */
  get version(): number {
    return this.changes + (this.ledger?.version ?? 0);
  }

  /**
   * Holds `bytes` for `holder` if they fit now; null (and nothing held) if
   * not. On a shared pool only a hold `within` one already booked, or of no
   * bytes, is taken this way: others go through `hold`.
   */
  tryHold(
    holder: Holder,
    kind: HoldKind,
    bytes: number,
    label: string,
    within?: Hold,
  ): Hold | null {
    if (!Number.isFinite(bytes) || bytes < 0)
      throw new RangeError(`${label}: cannot hold ${bytes} bytes`);
    if (within !== undefined) {
      if (!this.holds.has(within)) throw new RangeError(`${label}: ${within.label} is not held`);
      let drawn = 0;
      for (const h of this.holds) if (h.within === within) drawn += h.bytes;
      if (bytes > within.bytes - drawn) return null;
    } else {
      if (this.ledger !== null && bytes > 0)
        throw new RangeError(`${label}: a shared pool books bytes with hold()`);
      if (bytes > this.free) return null;
    }
    // A hold is made every unit of a loop: no spread of an optional field.
    const hold: Hold =
      within === undefined
        ? { holder, kind, bytes, label }
        : { holder, kind, bytes, label, within };
    this.holds.add(hold);
    if (within !== undefined) this.withins++;
    this.changed();
    return hold;
  }

  /**
   * Holds `bytes` for `holder` if they fit now — on a shared pool, if the
   * ledger books them beside every other engine's bookings; null (and
   * nothing held) if not. While it books, the bytes count as held here, so
   * this engine's other holders do not count on them.
   */
  async hold(holder: Holder, kind: HoldKind, bytes: number, label: string): Promise<Hold | null> {
    const ledger = this.ledger;
    if (ledger === null || bytes === 0) return this.tryHold(holder, kind, bytes, label);
    if (!Number.isFinite(bytes) || bytes < 0)
      throw new RangeError(`${label}: cannot hold ${bytes} bytes`);
    if (bytes > this.budget - this.used) return null;
    const hold: Hold = { holder, kind, bytes, label };
    this.holds.add(hold);
    let id: string | null;
    try {
      id = await ledger.book(
        {
          kind,
          bytes,
          holder: holder.name,
          label,
          run: holder.run ?? null,
          node: holder.node ?? null,
        },
        this.budget,
      );
    } catch (error) {
      this.holds.delete(hold);
      throw error;
    }
    // Refused, or given back (`releaseAll`) while it was being booked.
    if (id === null || !this.holds.has(hold)) {
      this.holds.delete(hold);
      if (id !== null) ledger.release(id);
      return null;
    }
    this.bookings.set(hold, id);
    this.changed();
    return hold;
  }

  /** Gives a hold back (and any held within it); releasing twice is harmless. */
  release(hold: Hold): void {
    if (!this.drop(hold)) return;
    // A set may lose entries while it is walked: each is visited at most once.
    if (this.withins > 0) for (const h of this.holds) if (h.within === hold) this.drop(h);
    this.changed();
  }

  /** Gives back everything `holder` holds and forgets its wait; returns the bytes freed. */
  releaseAll(holder: Holder): number {
    let freed = 0;
    for (const h of [...this.holds])
      if (h.holder === holder && this.drop(h) && h.within === undefined) freed += h.bytes;
    if (this.waits.delete(holder)) this.waitsVersion++;
    if (freed > 0) this.changed();
    return freed;
  }

  private drop(hold: Hold): boolean {
    if (!this.holds.delete(hold)) return false;
    if (hold.within !== undefined) this.withins--;
    const id = this.bookings.get(hold);
    if (id !== undefined) {
      this.bookings.delete(hold);
      this.ledger?.release(id);
    }
    return true;
  }

  /** Every hold, oldest first. */
  allHolds(): Hold[] {
    return [...this.holds];
  }

  /** Bytes held for one purpose, e.g. `activation`: units running right now. */
  bytesOf(kind: HoldKind): number {
    let sum = 0;
    for (const h of this.holds) if (h.kind === kind) sum += h.bytes;
    return sum;
  }

  /** The holds of `holder`. */
  holdsOf(holder: Holder): Hold[] {
    return [...this.holds].filter((h) => h.holder === holder);
  }

  /** Bytes `holder` holds. */
  heldBy(holder: Holder): number {
    return this.holdsOf(holder).reduce((sum, h) => sum + (h.within ? 0 : h.bytes), 0);
  }

  /** Records that `holder` waits for bytes (shown in the snapshot until cleared). */
  setWaiting(holder: Holder, wait: Wait): void {
    this.waits.set(holder, wait);
    this.waitsVersion++;
  }

  clearWaiting(holder: Holder): void {
    if (this.waits.delete(holder)) this.waitsVersion++;
  }

  /** What `holder` waits for, if anything. */
  waitOf(holder: Holder): Wait | undefined {
    return this.waits.get(holder);
  }

  /** Whether an engine that shares the budget moved lately (see `PoolLedger.othersActive`). */
  othersActive(): boolean {
    return this.ledger?.othersActive() ?? false;
  }

  /** Resolves at the next hold or release by anyone, here or (shared) in another engine. */
  nextChange(): Promise<void> {
    const here = new Promise<void>((resolve) => this.changeWaiters.push(resolve));
    return this.ledger === null ? here : Promise.race([here, this.ledger.nextChange()]);
  }

  private changed(): void {
    this.changes++;
    // Every unit of a loop holds and releases its peak: nobody waits then, and nothing is made.
    if (this.changeWaiters.length > 0) {
      const waiters = this.changeWaiters;
      this.changeWaiters = [];
      for (const resolve of waiters) resolve();
    }
    this.ledger?.moved(this.bytesOf('activation') > 0);
  }

  /**
   * The pool as plain data. A runner asks for it after every unit, and a
   * loop's unit gives back the peak it held: the holds are then those of the
   * tick before, and so is the snapshot, which is not made again.
   */
  snapshot(): PoolSnapshot {
    const others = this.ledger?.version ?? 0;
    const last = this.lastSnapshot;
    if (
      last !== null &&
      last.waits === this.waitsVersion &&
      last.others === others &&
      sameHolds(last.holds, this.holds)
    )
      return last.snapshot;
    const snapshot = this.makeSnapshot();
    this.lastSnapshot = { holds: [...this.holds], waits: this.waitsVersion, others, snapshot };
    return snapshot;
  }

  private makeSnapshot(): PoolSnapshot {
    const holds = [...this.holds];
    // A unit's peak drawn from its loop's reservation is in use, no longer reserved.
    const drawn = holds.reduce((sum, h) => sum + (h.within ? h.bytes : 0), 0);
    const otherBookings = [...(this.ledger?.others ?? [])];
    return {
      budget: this.budget,
      models: this.bytesOf('model'),
      reserved: this.bytesOf('state') - drawn,
      inUse: this.bytesOf('activation'),
      free: this.free,
      residentModels: holds
        .filter((h) => h.kind === 'model')
        .map((h) => ({ name: h.holder.name, bytes: h.bytes })),
      holds: holds.map((h) => ({
        holder: h.holder.name,
        kind: h.kind,
        bytes: h.bytes,
        label: h.label,
      })),
      waiting: [...this.waits].map(([holder, wait]) => ({
        holder: holder.name,
        bytes: wait.bytes,
        label: wait.label,
        holding: this.heldBy(holder),
      })),
      others: this.others,
      otherBookings,
    };
  }
}

/** Whether `holds` are the holds of `set`, in its order. */
function sameHolds(holds: readonly Hold[], set: ReadonlySet<Hold>): boolean {
  if (holds.length !== set.size) return false;
  let i = 0;
  for (const hold of set) if (holds[i++] !== hold) return false;
  return true;
}
