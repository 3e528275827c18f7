/**
 * Ending a run's record when storage fails under it.
 *
 * When the browser refuses a write — most often because the origin's storage
 * quota is full — going on is pointless: nothing more of the run could be
 * kept. The driver stops the run and writes its ending (`error`, with a reason
 * that names the quota) as one small write, retried a few times, because a
 * small write often still fits where a batch of points did not. Should even
 * that fail, the ending is not lost: the engine keeps it in memory and writes
 * it as soon as a write goes through again (see `PendingEndings`), holding
 * the run's Web Lock meanwhile so that no tab's lease sweep calls the run
 * abandoned. What was committed before the failure is never touched.
 */
import { errorMessage } from '../../src/core/engine/executor';
import type { RunId, RunNodeRow, RunRow } from '../../src/core/run/record';
import { endRun } from '../../src/db/runs';
import type { FlowbenchDb } from '../../src/db/schema';
import { FlowbenchError } from '../../src/core/errors';

/** The fields that close a run's record. */
export type RunEnding = Pick<
  RunRow,
  'status' | 'statusReason' | 'result' | 'finishedAt' | 'durationMs' | 'leaseUntil'
>;

/** True when `error` (or the IndexedDB error Dexie wraps) is the browser's quota refusal. */
export function isQuotaExceeded(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 4; depth++) {
    if (typeof e !== 'object') return false;
    if ((e as { name?: unknown }).name === 'QuotaExceededError') return true;
    e = (e as { inner?: unknown }).inner ?? (e as { cause?: unknown }).cause;
  }
  return false;
}

/** What a run's record says when a write of it failed. */
export function storageFailureReason(error: unknown): string {
  return isQuotaExceeded(error)
    ? 'storage quota exceeded: the browser refused to store more of this run (QuotaExceededError), so it was stopped; what it recorded before is kept. Delete runs you no longer need, or give the site more storage, and run it again.'
    : `could not store the run's record: ${errorMessage(error)}`;
}

/**
 * A run ended, but its ending could not be written yet; the engine keeps it to
 * write later. The error is the catalogue's `storage-quota` or
 * `storage-failed`; this class adds the ending itself, which never leaves the
 * engine worker (across the protocol the error is its code and data).
 */
export class RunEndingError extends FlowbenchError<'storage-quota' | 'storage-failed'> {
  constructor(
    runId: RunId,
    readonly ending: RunEnding,
    cause: unknown,
  ) {
    super(
      isQuotaExceeded(cause) ? 'storage-quota' : 'storage-failed',
      { runId, statusReason: ending.statusReason },
      { cause },
    );
  }
}

/** Waits between tries of the ending write, in milliseconds. */
const RETRY_DELAYS_MS = [100, 500, 2_000];

/**
 * Write a run's ending, trying again a few times; throws `RunEndingError`
 * (carrying the ending, for `PendingEndings`) when every try failed.
 * `nodes`, the node rows not written yet, go with it. The nodes are read
 * back: a run ending so lost writes, and any left unfinished are marked
 * `interrupted` (see `endRun`).
 */
export async function storeEnding(
  db: FlowbenchDb,
  runId: RunId,
  ending: RunEnding,
  setTimer: (fire: () => void, ms: number) => () => void,
  nodes: readonly RunNodeRow[] = [],
): Promise<void> {
  let failure: unknown = null;
  for (let attempt = 0; attempt <= RETRY_DELAYS_MS.length; attempt++) {
    if (attempt > 0)
      await new Promise<void>((resolve) => setTimer(resolve, RETRY_DELAYS_MS[attempt - 1]!));
    try {
      await endRun(db, runId, ending, { onlyWhileRunning: false, nodes });
      return;
    } catch (error) {
      failure = error;
    }
  }
  throw new RunEndingError(runId, ending, failure);
}

/**
 * The endings kept after `RunEndingError`, each written once a write fits
 * again (`store`, called before the lease sweep), and only onto a run still
 * marked `running`.
 *
 * Only this engine knows how such a run ended, so it holds the run's Web Lock
 * (`holdLock`) from when it keeps the ending until it is written: a run is
 * abandoned only when its lease has run out and nobody holds its lock, and
 * once the quota was lifted another tab's sweep could otherwise get there
 * first and call it abandoned. Should this tab go away, its locks go with it
 * and the run is rightly abandoned.
 */
export class PendingEndings {
  private readonly endings = new Map<RunId, RunEnding>();
  private readonly releases = new Map<RunId, () => void>();

  constructor(
    private readonly holdLock: (runId: RunId, body: () => Promise<void>) => Promise<void>,
  ) {}

  get size(): number {
    return this.endings.size;
  }

  keep(runId: RunId, ending: RunEnding): void {
    const held = this.endings.has(runId);
    this.endings.set(runId, ending);
    if (held) return;
    void this.holdLock(
      runId,
      () =>
        new Promise<void>((release) => {
          // Written before the lock was granted: nothing left to hold it for.
          if (this.endings.has(runId)) this.releases.set(runId, release);
          else release();
        }),
    ).catch(() => undefined);
  }

  /** Write every kept ending that fits now; those that do not wait for the next call. */
  async store(db: FlowbenchDb): Promise<void> {
    for (const [runId, ending] of this.endings) {
      try {
        await endRun(db, runId, ending, { onlyWhileRunning: true });
      } catch {
        continue; // Still no room: try again on the next sweep.
      }
      this.endings.delete(runId);
      this.releases.get(runId)?.();
      this.releases.delete(runId);
    }
  }
}
