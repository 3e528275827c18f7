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
 * (runs) in one engine. Trade-off: the bytes are estimates from graph shapes,
 * so the budget should leave room for the runtime's own overhead.
 */

/** Who holds bytes: a request or a resident model. Compared by identity. */
export interface Holder {
  /** Shown to people: a request id or a model's label. */
  readonly name: string;
}

/** `model`: a resident model; `state`: a loop's reservation; `activation`: one step's peak. */
export type HoldKind = 'model' | 'state' | 'activation';

/** Bytes one holder holds for one purpose. */
export interface Hold {
  readonly holder: Holder;
  readonly kind: HoldKind;
  readonly bytes: number;
  /** What the bytes are for, e.g. "train: weights and optimizer state". */
  readonly label: string;
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
  private readonly waits = new Map<Holder, Wait>();
  private changes = 0;
  private changeWaiters: (() => void)[] = [];

  /** @param budget bytes the device may hold for Flowbench at once. */
  constructor(readonly budget: number) {
    if (!Number.isFinite(budget) || budget < 0)
      throw new RangeError(`pool budget must be a non-negative number of bytes, got ${budget}`);
  }

  /** Bytes held in all. */
  get used(): number {
    let sum = 0;
    for (const h of this.holds) sum += h.bytes;
    return sum;
  }

  get free(): number {
    return this.budget - this.used;
  }

  /** Counts every hold and release; unchanged means nobody moved. */
  get version(): number {
    return this.changes;
  }

  /** Holds `bytes` for `holder` if they fit now; null (and nothing held) if not. */
  tryHold(holder: Holder, kind: HoldKind, bytes: number, label: string): Hold | null {
    if (!Number.isFinite(bytes) || bytes < 0)
      throw new RangeError(`${label}: cannot hold ${bytes} bytes`);
    if (bytes > this.free) return null;
    const hold: Hold = { holder, kind, bytes, label };
    this.holds.add(hold);
    this.changed();
    return hold;
  }

  /** Gives a hold back; releasing twice is harmless. */
  release(hold: Hold): void {
    if (this.holds.delete(hold)) this.changed();
  }

  /** Gives back everything `holder` holds and forgets its wait; returns the bytes freed. */
  releaseAll(holder: Holder): number {
    let freed = 0;
    for (const h of [...this.holds])
      if (h.holder === holder) {
        this.holds.delete(h);
        freed += h.bytes;
      }
    this.waits.delete(holder);
    if (freed > 0) this.changed();
    return freed;
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
    return this.holdsOf(holder).reduce((sum, h) => sum + h.bytes, 0);
  }

  /** Records that `holder` waits for bytes (shown in the snapshot until cleared). */
  setWaiting(holder: Holder, wait: Wait): void {
    this.waits.set(holder, wait);
  }

  clearWaiting(holder: Holder): void {
    this.waits.delete(holder);
  }

  /** What `holder` waits for, if anything. */
  waitOf(holder: Holder): Wait | undefined {
    return this.waits.get(holder);
  }

  /** Resolves at the next hold or release by anyone. */
  nextChange(): Promise<void> {
    return new Promise((resolve) => this.changeWaiters.push(resolve));
  }

  private changed(): void {
    this.changes++;
    const waiters = this.changeWaiters;
    this.changeWaiters = [];
    for (const resolve of waiters) resolve();
  }

  snapshot(): PoolSnapshot {
    const holds = [...this.holds];
    return {
      budget: this.budget,
      models: this.bytesOf('model'),
      reserved: this.bytesOf('state'),
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
    };
  }
}
