/**
 * Submit refuses what cannot run before a run exists: a node's params that
 * do not fit together (a data engine whose producers cannot split its cache)
 * are reported by field, and nothing is journaled.
 */
import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { pendulumExample, withParams } from '../core/live/testing';
import { builtinCatalog } from '../core/nodes';
import type { RunRequest } from '../core/run/request';
import { listRuns } from './runs';
import { FlowbenchDb } from './schema';
import { journalRequest } from './submit';
import { FlowbenchError, isFlowbenchError } from '../core/errors';

const opened: FlowbenchDb[] = [];
afterEach(async () => {
  for (const db of opened.splice(0)) await db.delete();
});

function request(flow = pendulumExample(), params: Record<string, unknown> = {}): RunRequest {
  return {
    flowId: null,
    flowVersion: 1,
    flow,
    params,
    seed: 0,
    backendChoice: 'auto',
    cause: 'ui',
  };
}

async function refusal(db: FlowbenchDb, req: RunRequest): Promise<FlowbenchError<'invalid-flow'>> {
  const error = await journalRequest(db, req, builtinCatalog).then(
    () => null,
    (e: unknown) => e,
  );
  if (!isFlowbenchError(error, 'invalid-flow')) throw new Error(`not refused: ${String(error)}`);
  return error;
}

describe('submit', () => {
  it('refuses a data engine config that cannot run, naming the field, and journals nothing', async () => {
    const db = new FlowbenchDb(`flowbench-test-submit-${crypto.randomUUID()}`);
    opened.push(db);
    const flow = withParams(pendulumExample(), 'engine', { num_envs: 3 });
    const error = await refusal(db, request(flow));
    expect(error.data.issues.map((i) => i.path)).toEqual(['nodes[1].params.num_envs']);
    expect(error.message).toContain("node 'engine' param 'num_envs': must divide buffer_size (32)");
    expect(await listRuns(db)).toEqual([]);
  });

  it('checks a param bound to a flow input with the value this run gives it', async () => {
    const db = new FlowbenchDb(`flowbench-test-submit-${crypto.randomUUID()}`);
    opened.push(db);
    const flow = pendulumExample();
    flow.inputs.push({ name: 'wait', type: 'number', default: 30 });
    flow.nodes.find((n) => n.id === 'engine')!.params.data_wait_timeout = { $input: 'wait' };
    const error = await refusal(db, request(flow, { wait: 0 }));
    expect(error.message).toContain(
      "nodes[1].params.data_wait_timeout: node 'engine' param 'data_wait_timeout' (from input 'wait')",
    );
    expect(await listRuns(db)).toEqual([]);
    // The same flow with a good value is journaled.
    await journalRequest(db, request(flow, { wait: 5 }), builtinCatalog);
    expect(await listRuns(db)).toHaveLength(1);
  });
});
