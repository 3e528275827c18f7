/**
 * Submitting a run: check everything that can be checked, journal the run as
 * `queued`, then hand it to the engine. A flow or params that cannot run are
 * refused here, with the findings, and nothing is journaled.
 */
import { v7 as uuidv7 } from 'uuid';
import { FlowValidationError } from '../../core/flow/issues';
import { validateFlow } from '../../core/flow/validate';
import { builtinCatalog } from '../../core/nodes';
import { batchIssues } from '../../core/run/batch';
import { resolveNodeParams, resolveRunParams } from '../../core/run/params';
import type { RunId } from '../../core/run/record';
import { queuedRun, type RunRequest } from '../../core/run/request';
import { journalRun } from '../../db/runs';
import type { FlowbenchDb } from '../../db/schema';

export type { RunRequest } from '../../core/run/request';

/** Throws FlowValidationError, naming what is wrong, when a request cannot run. */
export function checkRequest(request: RunRequest): void {
  const { flow, seed } = request;
  const flowIssues = validateFlow(flow, builtinCatalog);
  if (flowIssues.length > 0)
    throw new FlowValidationError(flowIssues, `The flow '${flow.name}' is`);
  const batch = batchIssues(flow, builtinCatalog);
  if (batch.length > 0)
    throw new FlowValidationError(batch, `The flow '${flow.name}' cannot run as a batch; it is`);
  const { values, issues } = resolveRunParams(flow, request.params, seed);
  if (issues.length > 0) throw new FlowValidationError(issues, 'The run parameters are');
  // Params bound to inputs get their values only now: check each node's params as it will run.
  const nodeIssues = flow.nodes.flatMap((node, i) => {
    const kind = builtinCatalog.get(node.kind);
    return kind ? resolveNodeParams(node, kind, values, i).issues : [];
  });
  if (nodeIssues.length > 0)
    throw new FlowValidationError(nodeIssues, `With these parameters, the flow '${flow.name}' is`);
}

/** Validate and journal a run; returns its id. Throws FlowValidationError when refused. */
export async function journalRequest(db: FlowbenchDb, request: RunRequest): Promise<RunId> {
  checkRequest(request);
  const id = uuidv7() as RunId;
  await journalRun(db, await queuedRun(request, id, new Date()));
  return id;
}
