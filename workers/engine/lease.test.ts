import 'fake-indexeddb/auto';
import { afterEach, expect, it } from 'vitest';
import type { RunId, RunNodeRow, RunRow } from '../../src/core/run/record';
import { putMetrics } from '../../src/db/metrics';
import { putRunNodes, runNodes } from '../../src/db/run-nodes';
import { getRun, journalRun } from '../../src/db/runs';
import { FlowbenchDb } from '../../src/db/schema';
import { storedCounts } from '../../src/db/testing';
import { ABANDONED_REASON, sweepAbandoned } from './lease';

let db: FlowbenchDb;
let n = 0;
afterEach(async () => {
  db.close();
  await db.delete();
});

function run(
  id: string,
  status: RunRow['status'],
  leaseUntil: number | null,
  nodes: readonly string[] = [],
): RunRow {
  return {
    id: id as RunId,
    flowId: null,
    flow: 'f',
    flowVersion: 1,
    flowSnapshot: {
      format: 'flowbench.flow/1',
      name: 'f',
      inputs: [],
      outputs: [],
      nodes: nodes.map((node, i) => ({
        id: node,
        kind: 'test.noop',
        params: {},
        position: { x: 0, y: i * 10 },
      })),
      edges: [],
    },
    params: {},
    seed: 0,
    paramsDigest: '',
    groupId: null,
    cause: 'ui',
    backendChoice: 'auto',
    status,
    statusReason: '',
    createdAt: '',
    startedAt: '',
    finishedAt: null,
    durationMs: null,
    engine: null,
    result: {},
    leaseUntil,
    cancelRequestedAt: null,
    requires: [],
    rerunOf: null,
  };
}

function node(runId: string, id: string, status: RunNodeRow['status']): RunNodeRow {
  return {
    runId: runId as RunId,
    node: id,
    status,
    startedAt: null,
    durationMs: null,
    error: '',
    logs: '',
  };
}

it('marks a running run with a stale lease and a free lock abandoned, keeping its record', async () => {
  // `d` was still queued, too briefly for its row to be written: it ends interrupted all the same.
  db = new FlowbenchDb(`lease-${++n}`);
  for (const row of [
    run('stale', 'running', 1_000, ['a', 'b', 'c', 'd']),
    run('fresh', 'running', 10_000),
    run('locked', 'running', 1_000),
    run('done', 'ok', 1_000),
  ])
    await journalRun(db, row);
  await putRunNodes(db, [
    node('stale', 'a', 'ok'),
    node('stale', 'b', 'running'),
    node('stale', 'c', 'queued'),
  ]);
  await putMetrics(db, [{ runId: 'stale' as RunId, name: 'a.x', step: 0, value: 1, ts: 0 }]);

  const swept = await sweepAbandoned(db, 5_000, (id) => Promise.resolve(id === 'locked'));

  expect(swept).toEqual(['stale']);
  const stale = await getRun(db, 'stale' as RunId);
  expect(stale).toMatchObject({ status: 'abandoned', statusReason: ABANDONED_REASON });
  expect((await getRun(db, 'fresh' as RunId))?.status).toBe('running');
  expect((await getRun(db, 'locked' as RunId))?.status).toBe('running');
  expect((await getRun(db, 'done' as RunId))?.status).toBe('ok');
  const nodes = (await runNodes(db, 'stale' as RunId)).sort((a, b) => a.node.localeCompare(b.node));
  expect(nodes.map((row) => [row.node, row.status])).toEqual([
    ['a', 'ok'],
    ['b', 'interrupted'],
    ['c', 'interrupted'],
    ['d', 'interrupted'],
  ]);
  expect((await storedCounts(db)).metrics).toBe(1);
});
