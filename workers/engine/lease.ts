/**
 * Abandoned runs. A run is `running` only while an engine vouches for it: the
 * engine holds a Web Lock named after the run and keeps a lease timestamp
 * fresh. When neither holds — the tab was closed, the worker was killed — the
 * run is marked `abandoned`, keeping every point and outcome written before
 * its engine died; a node that was mid-way is marked `interrupted`, not ok.
 */
import type { RunId } from '../../src/core/run/record';
import { endRun, runsWithStatus } from '../../src/db/runs';
import type { FlowbenchDb } from '../../src/db/schema';

export const ABANDONED_REASON = 'The engine running it stopped reporting';

export async function sweepAbandoned(
  db: FlowbenchDb,
  now: number,
  isLocked: (runId: RunId) => Promise<boolean>,
): Promise<RunId[]> {
  const running = await runsWithStatus(db, 'running');
  const abandoned: RunId[] = [];
  for (const run of running) {
    if ((run.leaseUntil ?? 0) > now || (await isLocked(run.id))) continue;
    const moved = await endRun(
      db,
      run.id,
      {
        status: 'abandoned',
        statusReason: ABANDONED_REASON,
        finishedAt: new Date(now).toISOString(),
        leaseUntil: null,
      },
      // Another engine may have ended it meanwhile.
      { onlyWhileRunning: true },
    );
    if (moved) abandoned.push(run.id);
  }
  return abandoned;
}
