/**
 * Reads the final metric values of finished runs as they come, for the
 * parallel coordinates' metric axes (`useFinals`). A finished run's finals
 * never change, so each run is read once. Runs that finish together (a
 * sweep, an import) are read together once `settleMs` has passed since the
 * first of them, at most `slice` runs a read and one read at a time: a
 * read's results are handled in one task, and during a sweep a timer put
 * off by every newly finished run never fired until the sweep paused, when
 * it read hundreds of runs' nodes at once (a 72 ms task in a 1,000-run sweep).
 */
import type { RunId } from '../../core/run/record';

/** Final values by run, then metric. */
export type Finals = ReadonlyMap<RunId, Readonly<Record<string, number>>>;

export interface FinalsReaderOptions {
  /** The finals of `ids`, for the metrics run `namesOf` has. */
  read(ids: readonly RunId[], namesOf: RunId): Promise<Finals>;
  /** How long the first run of a burst waits for the rest before they are read. */
  settleMs: number;
  /** The most runs one read takes. */
  slice: number;
  setTimer(fire: () => void, ms: number): () => void;
  /** `shown()` has changed. */
  onChange(): void;
}

export class FinalsReader {
  private namesOf: RunId | undefined;
  private held = new Map<RunId, Readonly<Record<string, number>>>();
  private wanted: readonly RunId[] = [];
  private cancelTimer: (() => void) | null = null;
  private reading = false;
  /** A read failed: the next `want` tries again (the metric axes are extra; no retry loop). */
  private failed = false;
  private closed = false;

  constructor(private readonly options: FinalsReaderOptions) {}

  /** Show the finals of the finished runs `wanted`, read with the metric names of `namesOf`. */
  want(wanted: readonly RunId[], namesOf: RunId | undefined): void {
    if (namesOf !== this.namesOf) {
      this.namesOf = namesOf;
      this.held = new Map();
    }
    this.wanted = wanted;
    this.failed = false;
    this.closed = false;
    if (this.missing().length === 0) this.options.onChange();
    else this.schedule();
  }

  /** The finals read so far of the runs wanted. */
  shown(): Finals {
    return new Map(
      this.wanted.flatMap((id) => {
        const values = this.held.get(id);
        return values ? [[id, values] as const] : [];
      }),
    );
  }

  /** Stop: nothing more is read or told. */
  close(): void {
    this.closed = true;
    this.cancelTimer?.();
    this.cancelTimer = null;
  }

  private missing(): RunId[] {
    return this.wanted.filter((id) => !this.held.has(id));
  }

  private schedule(): void {
    if (this.closed || this.failed || this.reading || this.cancelTimer !== null) return;
    if (this.namesOf === undefined || this.missing().length === 0) return;
    this.cancelTimer = this.options.setTimer(() => {
      this.cancelTimer = null;
      void this.readSlice();
    }, this.options.settleMs);
  }

  private async readSlice(): Promise<void> {
    const { namesOf, held } = this;
    const ids = this.missing().slice(0, this.options.slice);
    if (namesOf === undefined || ids.length === 0) return;
    this.reading = true;
    try {
      const read = await this.options.read(ids, namesOf);
      for (const id of ids) held.set(id, read.get(id) ?? {});
    } catch {
      this.failed = true;
    } finally {
      this.reading = false;
    }
    if (this.closed) return;
    // Read for metric names no longer asked for: dropped, and the runs read again for the new ones.
    if (held === this.held) this.options.onChange();
    this.schedule();
  }
}
