/**
 * Submit refuses what cannot run before a run exists: a node's params that
 * do not fit together (a data engine whose producers cannot split its cache)
 * are reported by field, and nothing is journaled. What it journals records
 * the values the run will use, defaults included, and digests them.
 */
import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { pendulumExample, withParams } from '../core/nodes/testing';
import { builtinCatalog } from '../core/nodes';
import type { RunRequest } from '../core/run/request';
import { formParams } from '../core/run/form';
import { sha256Hex } from '../core/run/digest';
import { getRun, listRuns } from './runs';
import { FlowbenchDb } from './schema';
import { journalRequest, journalRequests } from './submit';
import { runEntriesOfGroup } from './run-list';
import { FlowbenchError, isFlowbenchError } from '../core/errors';

const opened: FlowbenchDb[] = [];
afterEach(async () => {
  for (const db of opened.splice(0)) await db.delete();
});

function request(
  flow = pendulumExample(),
  params: Record<string, unknown> = {},
  seed?: number,
): RunRequest {
  return {
    flowId: null,
    flowVersion: 1,
    flow,
    params,
    ...(seed === undefined ? {} : { seed }),
    backendChoice: 'auto',
    cause: 'ui',
  };
}

function openDb(): FlowbenchDb {
  const db = new FlowbenchDb(`flowbench-test-submit-${crypto.randomUUID()}`);
  opened.push(db);
  return db;
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
    const db = openDb();
    const flow = withParams(pendulumExample(), 'engine', { num_envs: 3 });
    const error = await refusal(db, request(flow));
    expect(error.data.issues.map((i) => i.path)).toEqual(['nodes[1].params.num_envs']);
    expect(error.message).toContain("node 'engine' param 'num_envs': must divide buffer_size (32)");
    expect(await listRuns(db)).toEqual([]);
  });

  it('checks a param bound to a flow input with the value this run gives it', async () => {
    const db = openDb();
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

  it("journals every input's value and digests them with the seed, typed or left to defaults", async () => {
    const db = openDb();
    const flow = pendulumExample();
    // The pendulum example's inputs: steps 300, lr 0.003, seed 0 by default.
    const empty = formParams(flow, { steps: '', lr: '', seed: '' });
    const typed = formParams(flow, { steps: '300', lr: '0.003', seed: '0' });
    const a = await journalRequest(db, request(flow, empty.params, empty.seed), builtinCatalog);
    const b = await journalRequest(db, request(flow, typed.params, typed.seed), builtinCatalog);
    const [left, right] = [await getRun(db, a), await getRun(db, b)];
    expect(left?.params).toEqual({ steps: 300, lr: 0.003 });
    expect(left?.seed).toBe(0);
    expect(left?.paramsDigest).toBe(
      await sha256Hex('{"params":{"lr":0.003,"steps":300},"seed":0}'),
    );
    expect(right?.params).toEqual(left?.params);
    expect(right?.paramsDigest).toBe(left?.paramsDigest);
  });

  it("runs an empty seed field with the seed input's default", async () => {
    const db = openDb();
    const flow = pendulumExample();
    flow.inputs = flow.inputs.map((i) => (i.name === 'seed' ? { ...i, default: 42 } : i));
    const { params, seed } = formParams(flow, { seed: '' });
    const id = await journalRequest(db, request(flow, params, seed), builtinCatalog);
    const run = await getRun(db, id);
    expect(run?.seed).toBe(42);
    expect(run?.params).not.toHaveProperty('seed');
    expect(run?.paramsDigest).toBe(
      await sha256Hex('{"params":{"lr":0.003,"steps":300},"seed":42}'),
    );
  });
});

describe('journalRequests', () => {
  it('journals a sweep in one go, or nothing when one of its runs cannot run', async () => {
    const db = new FlowbenchDb(`flowbench-test-submit-many-${crypto.randomUUID()}`);
    try {
      const request = (seed: number): RunRequest => ({
        flowId: null,
        flowVersion: 1,
        flow: pendulumExample(),
        params: {},
        seed,
        backendChoice: 'auto',
        cause: 'sweep',
        groupId: 'g',
      });
      const ids = await journalRequests(db, [0, 1, 2].map(request), builtinCatalog);
      expect((await listRuns(db)).map((run) => run.id).sort()).toEqual([...ids].sort());
      expect((await runEntriesOfGroup(db, 'g')).map((e) => e.status)).toEqual([
        'queued',
        'queued',
        'queued',
      ]);
      const bad = { ...request(3), params: { nonsense: 'x' } };
      await expect(journalRequests(db, [request(4), bad], builtinCatalog)).rejects.toThrow();
      expect(await listRuns(db)).toHaveLength(3);
    } finally {
      await db.delete();
    }
  });
});
