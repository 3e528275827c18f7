/**
 * A run's node outcomes, held in memory and written in batches.
 *
 * Every node of a run is queued, starts and ends, and may log; written one
 * transaction per change, a flow of a thousand trivial nodes made three
 * thousand transactions in a row, and every one woke each view of the run's
 * nodes to read them all again, so the run's time grew with the square of
 * its nodes. Here a change only marks its node; the marked rows are written
 * together, in one transaction, once `delayMs` has passed since the first
 * mark (or at once when `maxRows` are marked), so a run writes a few batches
 * a second whatever its size, and a view reads the nodes a few times a
 * second. The first batch waits like the others: a run that ends within
 * `delayMs` writes its nodes once, with its ending (`takeLast`). While a
 * batch is being written, the next waits for it to land, gathering each
 * node's latest row meanwhile: when storage is slower than the batches (a
 * thousand rows a batch, a loaded machine), a node that started and ended
 * in that time is written once, not in a line of batches that each rewrite
 * it and all land late. A node that started since the last batch was cut
 * and is still running waits for the next one: most nodes are quick, so by
 * then it has ended, and it is written once (queued, then its outcome)
 * instead of twice; a slow node is written `running` a batch later. Trade-off:
 * a status reaches storage (and the canvas) up to `delayMs` late (`running`,
 * up to two batches), or once the write before it has landed, and a crash
 * loses at most the batch not yet written (a node stored `queued` is marked
 * interrupted like a `running` one; a run that crashed before its first
 * batch has no node rows).
 */
import { isPromiseLike } from '../../src/core/promise-like';
import type { RunId, RunNodeRow } from '../../src/core/run/record';

export interface NodeOutcomesOptions {
  runId: RunId;
  /**
   * Write these rows, whole, in one transaction (in the order writes were
   * asked for). A promise it returns is the batch landing (failed or not):
   * the next batch waits for it.
   */
  write(rows: readonly RunNodeRow[]): unknown;
  setTimer(fire: () => void, ms: number): () => void;
  /** How long a change may wait to be written. */
  delayMs: number;
  /** Write at once when this many nodes have changed. */
  maxRows?: number;
}

/** How long a node's change waits, by default, before its batch is written. */
export const NODE_BATCH_MS = 100;
/** The most node rows one batch holds by default. */
export const NODE_BATCH_ROWS = 1_000;

export class NodeOutcomes {
  private readonly rows = new Map<string, RunNodeRow>();
  private readonly changed = new Set<string>();
  private stopTimer: (() => void) | null = null;
  /** The batch being written, until it lands. */
  private writing: Promise<void> | null = null;
  /** A batch fell due while one was being written: it goes when that one lands. */
  private due = false;
  /** Batches cut so far; a node that turns `running` notes the count it did so at. */
  private cuts = 0;
  private readonly startedAt = new Map<string, number>();
  /** Nodes with a row in storage (or on its way): only those may wait for their `running`. */
  private readonly written = new Set<string>();
  private closed = false;

  constructor(private readonly options: NodeOutcomesOptions) {}

  /** `node` is queued: its first row. */
  queued(node: string): void {
    this.rows.set(node, {
      runId: this.options.runId,
      node,
      status: 'queued',
      startedAt: null,
      durationMs: null,
      error: '',
      logs: '',
    });
    this.mark(node);
  }

  /** Change `node`'s row (a node never queued is ignored). */
  update(node: string, changes: Partial<RunNodeRow>): void {
    const row = this.rows.get(node);
    if (!row) return;
    if (changes.status === 'running' && row.status !== 'running')
      this.startedAt.set(node, this.cuts);
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
   * lands. A node that turned `running` since the last batch was cut waits
   * for the next one (unless this is the last: `close` was called).
   */
  flush(): void {
    this.stopTimer?.();
    this.stopTimer = null;
    if (this.changed.size === 0) return;
    if (this.writing) {
      this.due = true;
      return;
    }
    const rows: RunNodeRow[] = [];
    for (const node of this.changed) {
      const row = this.rows.get(node)!;
      if (!this.closed && this.justStarted(row)) continue;
      rows.push(row);
    }
    this.cuts++;
    for (const { node } of rows) {
      this.changed.delete(node);
      this.written.add(node);
    }
    // What waited goes with the next batch, at the latest after the usual delay.
    if (this.changed.size > 0 && !this.closed)
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
    for (const node of this.changed) this.written.add(node);
    this.changed.clear();
    return rows;
  }

  /** Stop the timer; what changed since the last batch is left to `takeLast` (or a last `flush`, which holds nothing back). */
  close(): void {
    this.closed = true;
    this.stopTimer?.();
    this.stopTimer = null;
  }

  /** `row` is `running`, stored before, and started since the last batch was cut. */
  private justStarted(row: RunNodeRow): boolean {
    return (
      row.status === 'running' &&
      this.written.has(row.node) &&
      this.startedAt.get(row.node) === this.cuts
    );
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
    if (this.changed.size >= (this.options.maxRows ?? NODE_BATCH_ROWS)) this.flush();
    else if (!this.closed)
      this.stopTimer ??= this.options.setTimer(() => this.flush(), this.options.delayMs);
  }
}
