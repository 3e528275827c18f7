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
import { journalRun } from './runs';
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
