/**
 * Submitting a run to this browser's store: check everything that can be
 * checked, then journal the run as `queued` for an engine to claim, with the
 * params and seed it will use (defaults filled in), so its digest names the
 * experiment and not how the form was filled. A flow
 * or params that cannot run are refused with the findings, and nothing is
 * journaled. (A headless runner checks with the same `checkRequest` and
 * writes its record elsewhere.)
 */
import { v7 as uuidv7 } from 'uuid';
import type { Catalog } from '../core/catalog/catalog';
import { checkRequest } from '../core/run/check';
import type { RunId } from '../core/run/record';
import { queuedRun, type RunRequest } from '../core/run/request';
import { journalRun, journalRuns } from './runs';
import type { FlowbenchDb } from './schema';

/** Validate and journal a run; returns its id. Throws `invalid-flow` when refused. */
export async function journalRequest(
  db: FlowbenchDb,
  request: RunRequest,
  catalog: Catalog,
): Promise<RunId> {
  const effective = checkRequest(request, catalog);
  const id = uuidv7() as RunId;
  await journalRun(db, await queuedRun({ ...request, ...effective }, id, new Date()));
  return id;
}

/** Runs made ready to journal between two turns the page gets (about 10 ms of work on a loaded machine). */
const JOURNAL_YIELD_EVERY = 25;

const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * Validate and journal several runs (a sweep) as one submission, in one
 * transaction: every request is checked first, so one that cannot run
 * refuses them all and nothing is journaled; then the lists of runs change
 * once, not once per run. Returns their ids, in order.
 */
export async function journalRequests(
  db: FlowbenchDb,
  requests: readonly RunRequest[],
  catalog: Catalog,
): Promise<RunId[]> {
  const runs = [];
  for (const [i, request] of requests.entries()) {
    // A run's check, copy and digest are small, but a sweep has up to a thousand: the digests'
    // awaits do not yield to the page (the browser settles many at once), so every
    // JOURNAL_YIELD_EVERY runs the page gets a turn, and no submission is one long task.
    if (i > 0 && i % JOURNAL_YIELD_EVERY === 0) await nextTask();
    runs.push(
      await queuedRun(
        { ...request, ...checkRequest(request, catalog) },
        uuidv7() as RunId,
        new Date(),
      ),
    );
  }
  await journalRuns(db, runs);
  return runs.map((run) => run.id);
}
