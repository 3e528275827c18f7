/**
 * Checking a run request before the run exists: the flow, its batch shape,
 * the run's parameters, and each node's params as they will run (params
 * bound to flow inputs get their values only now). A request that cannot run
 * is refused here, with every finding, so nothing is journaled for it.
 *
 * What it returns is what the run records: the value of every input, the
 * ones left to their defaults included.
 *
 * Pure: the browser's submit and a headless runner use it unchanged, each
 * with the catalog it runs.
 */
import type { Catalog } from '../catalog/catalog';
import { validateFlow } from '../flow/validate';
import { batchIssues } from './batch';
import {
  effectiveParams,
  resolveNodeParams,
  resolveRunParams,
  type EffectiveParams,
} from './params';
import type { RunRequest } from './request';
import { FlowbenchError } from '../errors';

/**
 * The params and seed `request` runs with (every input's value; see
 * `effectiveParams`). Throws `invalid-flow`, naming what is wrong, when it
 * cannot run on `catalog`.
 */
export function checkRequest(request: RunRequest, catalog: Catalog): EffectiveParams {
  const { flow, seed } = request;
  const flowIssues = validateFlow(flow, catalog);
  if (flowIssues.length > 0)
    throw new FlowbenchError('invalid-flow', {
      issues: flowIssues,
      subject: `The flow '${flow.name}' is`,
    });
  const batch = batchIssues(flow, catalog);
  if (batch.length > 0)
    throw new FlowbenchError('invalid-flow', {
      issues: batch,
      subject: `The flow '${flow.name}' cannot run as a batch; it is`,
    });
  const { values, issues } = resolveRunParams(flow, request.params, seed);
  if (issues.length > 0)
    throw new FlowbenchError('invalid-flow', { issues, subject: 'The run parameters are' });
  // Params bound to inputs get their values only now: check each node's params as it will run.
  const nodeIssues = flow.nodes.flatMap((node, i) => {
    const kind = catalog.get(node.kind);
    return kind ? resolveNodeParams(node, kind, values, i).issues : [];
  });
  if (nodeIssues.length > 0)
    throw new FlowbenchError('invalid-flow', {
      issues: nodeIssues,
      subject: `With these parameters, the flow '${flow.name}' is`,
    });
  return effectiveParams(values, seed);
}
