/**
 * Node logs, written as they grow. A node's logs live in its row in memory
 * and used to be written only when its status changed, so a crash lost every
 * line of a long node. Each change now marks the node, and the marked nodes'
 * logs are written together once the metric batches' delay has passed: the
 * same cadence, and so the same loss at most, as the points, at one small
 * write per delay however chatty the nodes are.
 */
export interface LogFlusherOptions {
  /** Write the current logs of `nodes`. */
  write(nodes: readonly string[]): void;
  setTimer(fire: () => void, ms: number): () => void;
  /** How long a changed log may wait to be written. */
  delayMs: number;
}

export class LogFlusher {
  private readonly changed = new Set<string>();
  private stopTimer: (() => void) | null = null;

  constructor(private readonly options: LogFlusherOptions) {}

  /** `node`'s logs grew: write them within `delayMs`. */
  changedLogs(node: string): void {
    this.changed.add(node);
    this.stopTimer ??= this.options.setTimer(() => this.flush(), this.options.delayMs);
  }

  /** Write every changed log now. */
  flush(): void {
    this.close();
    if (this.changed.size === 0) return;
    const nodes = [...this.changed];
    this.changed.clear();
    this.options.write(nodes);
  }

  /** Stop the timer; what changed since the last write is left to the run's final write. */
  close(): void {
    this.stopTimer?.();
    this.stopTimer = null;
  }
}
