/**
 * A run's node outcomes, held in memory and written in batches.
 *
 * Every node of a run is queued, starts and ends, and may log; written one
 * transaction per change, a flow of a thousand trivial nodes made three
 * thousand transactions in a row, and every one woke each view of the run's
 * nodes to read them all again, so the run's time grew with the square of
 * its nodes. Here a change only marks its node; the marked rows are written
 * together, in one transaction, once `delayMs` has passed since the first
 * mark (or at once when `maxRows` are ready), so a run writes a few batches
 * a second whatever its size, and a view reads the nodes a few times a
 * second. While a batch is being written, the next waits for it to land,
 * gathering each node's latest row meanwhile: when storage is slower than
 * the batches (a thousand rows a batch, a loaded machine), a node that
 * started and ended in that time is written once, not in a line of batches
 * that each rewrite it and all land late.
 *
 * While more than `fewRows` nodes are on their way (`queued`, `running`),
 * such a status waits until it has lasted `holdMs`: in a flow of a thousand
 * quick nodes every node is queued, then running (waiting its turn on the
 * engine's one thread), for a fraction of a second, and their rows were a
 * thousand writes each for statuses that were gone before anyone saw them;
 * now each node is written once, with its outcome. A flow of a few nodes
 * still shows each one queued and running a batch later. Once closed,
 * nothing more is cut: what is left goes with the run's ending, in its
 * transaction (`takeLast`). Trade-off: in a big flow a node that lasts shows
 * queued or running a second late (its progress, told to the page apart
 * from storage, shows at once); an outcome reaches storage (and the canvas)
 * up to `delayMs` late, or once the write before it has landed; and a crash
 * loses at most what was not written yet: a node stored `queued` or
 * `running` is marked interrupted, one never stored has no row until the
 * run is ended for it (`interruptUnfinishedNodes`).
 */
import { isPromiseLike } from '../../src/core/promise-like';
import {
  unstartedNodeRow,
  type NodeStatus,
  type RunId,
  type RunNodeRow,
} from '../../src/core/run/record';

export interface NodeOutcomesOptions {
  runId: RunId;
  /**
   * Write these rows, whole, in one transaction (in the order writes were
   * asked for). A promise it returns is the batch landing (failed or not):
   * the next batch waits for it.
   */
  write(rows: readonly RunNodeRow[]): unknown;
  setTimer(fire: () => void, ms: number): () => void;
  /** The clock a status's age is read from, ms. */
  now(): number;
  /** How long a change may wait to be written. */
  delayMs: number;
  /** Write at once when this many nodes have a row ready. */
  maxRows?: number;
  /** How long a status on the way must last to be written, while more than `fewRows` are. */
  holdMs?: number;
  fewRows?: number;
}

/** How long a node's change waits, by default, before its batch is written. */
export const NODE_BATCH_MS = 100;
/** The most node rows one batch holds by default. */
export const NODE_BATCH_ROWS = 1_000;
/** How long, by default, a node stays queued or running before that is written… */
export const NODE_HOLD_MS = 1_000;
/** …while more than this many are. */
export const NODE_FEW_ROWS = 32;

/** Statuses a node passes through on its way to an outcome. */
const onTheWay = (status: NodeStatus) => status === 'queued' || status === 'running';

export class NodeOutcomes {
  private readonly rows = new Map<string, RunNodeRow>();
  private readonly changed = new Set<string>();
  /** When each node's status last changed. */
  private readonly since = new Map<string, number>();
  /** Nodes marked with an outcome since the last batch was cut. */
  private ready = 0;
  private stopTimer: (() => void) | null = null;
  /** The batch being written, until it lands. */
  private writing: Promise<void> | null = null;
  /** A batch fell due while one was being written: it goes when that one lands. */
  private due = false;
  private closed = false;

  constructor(private readonly options: NodeOutcomesOptions) {}

  /** `node` is queued: its first row. */
  queued(node: string): void {
    this.rows.set(node, unstartedNodeRow(this.options.runId, node, 'queued'));
    this.since.set(node, this.options.now());
    this.mark(node);
  }

  /** Change `node`'s row (a node never queued is ignored). */
  update(node: string, changes: Partial<RunNodeRow>): void {
    const row = this.rows.get(node);
    if (!row) return;
    if (changes.status !== undefined && changes.status !== row.status)
      this.since.set(node, this.options.now());
    this.rows.set(node, { ...row, ...changes });
    this.mark(node);
  }

  /** `node`'s row as it is now. */
  get(node: string): RunNodeRow | undefined {
    return this.rows.get(node);
  }

  /** Every node's row as it is now. */
  all(): IterableIterator<RunNodeRow> {
    return this.rows.values();
  }

  /**
   * Write the changed rows in one batch: now, or when the batch being written
   * lands. While many nodes are on their way, a status on the way younger
   * than `holdMs` waits for a later one; once closed, nothing is cut
   * (`takeLast` hands the rest over).
   */
  flush(): void {
    this.stopTimer?.();
    this.stopTimer = null;
    if (this.changed.size === 0 || this.closed) return;
    if (this.writing) {
      this.due = true;
      return;
    }
    const now = this.options.now();
    let waiting = 0;
    for (const node of this.changed) if (onTheWay(this.rows.get(node)!.status)) waiting++;
    const hold =
      waiting > (this.options.fewRows ?? NODE_FEW_ROWS) ? (this.options.holdMs ?? NODE_HOLD_MS) : 0;
    const rows: RunNodeRow[] = [];
    for (const node of this.changed) {
      const row = this.rows.get(node)!;
      if (onTheWay(row.status) && now - this.since.get(node)! < hold) continue;
      rows.push(row);
    }
    for (const { node } of rows) this.changed.delete(node);
    this.ready = 0;
    // What waited is looked at again after the usual delay.
    if (this.changed.size > 0)
      this.stopTimer = this.options.setTimer(() => this.flush(), this.options.delayMs);
    if (rows.length === 0) return;
    const landed = this.options.write(rows);
    if (!isPromiseLike(landed)) return;
    const writing: Promise<void> = Promise.resolve(landed).then(
      () => this.landed(writing),
      () => this.landed(writing),
    );
    this.writing = writing;
  }

  /**
   * Close, wait for any batch being written, and hand over the rows not
   * written yet — the last batch, taken rather than written, for the caller
   * to write in the run's ending transaction: one write where there were two.
   */
  async takeLast(): Promise<RunNodeRow[]> {
    this.close();
    while (this.writing) await this.writing;
    const rows = [...this.changed].map((node) => this.rows.get(node)!);
    this.changed.clear();
    return rows;
  }

  /** Stop the timer; what changed since the last batch is left to `takeLast`. */
  close(): void {
    this.closed = true;
    this.stopTimer?.();
    this.stopTimer = null;
  }

  private landed(writing: Promise<void>): void {
    if (this.writing !== writing) return;
    this.writing = null;
    if (!this.due) return;
    this.due = false;
    this.flush();
  }

  private mark(node: string): void {
    this.changed.add(node);
    if (this.closed) return;
    if (
      !onTheWay(this.rows.get(node)!.status) &&
      ++this.ready >= (this.options.maxRows ?? NODE_BATCH_ROWS)
    )
      this.flush();
    else this.stopTimer ??= this.options.setTimer(() => this.flush(), this.options.delayMs);
  }
}
