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
 * second. The first batch (every node queued) is written at once. Trade-off: a status reaches storage (and the canvas) up to
 * `delayMs` late, and a crash loses at most that much of it.
 */
import type { RunId, RunNodeRow } from '../../src/core/run/record';

export interface NodeOutcomesOptions {
  runId: RunId;
  /** Write these rows, whole, in one transaction (in the order writes were asked for). */
  write(rows: readonly RunNodeRow[]): void;
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
  private started = false;

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

  /** Write every changed row now, in one batch. */
  flush(): void {
    this.stopTimer?.();
    this.stopTimer = null;
    if (this.changed.size === 0) return;
    const rows = [...this.changed].map((node) => this.rows.get(node)!);
    this.changed.clear();
    this.options.write(rows);
  }

  /** Stop the timer; what changed since the last batch is left to a last `flush`. */
  close(): void {
    this.stopTimer?.();
    this.stopTimer = null;
  }

  private mark(node: string): void {
    this.changed.add(node);
    if (!this.started) {
      // The first batch goes as soon as the executor has queued every node (in one turn), so
      // every node has its row from the start, whatever becomes of later writes.
      this.started = true;
      queueMicrotask(() => this.flush());
      return;
    }
    if (this.changed.size >= (this.options.maxRows ?? NODE_BATCH_ROWS)) this.flush();
    else this.stopTimer ??= this.options.setTimer(() => this.flush(), this.options.delayMs);
  }
}
