import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { fromRunExport, toRunExport, type RunRecord } from '../core/run/export';
import type { MetricRow, RunId } from '../core/run/record';
import {
  activeRuns,
  cancelRequested,
  claimNextRun,
  sayWhyRunsWait,
  renewLease,
  requestCancel,
  runsByIds,
  type QueueReader,
  claimRun,
  deleteRuns,
  importRunRecord,
  journalRun,
  listRuns,
  readRunRecord,
  updateRun,
} from './runs';
import { countMetricPoints, putMetrics } from './metrics';
import { putRunNodes, runNodes } from './run-nodes';
import type { FlowbenchDb } from './schema';
import { testDatabases, testRunRow, transactionsOf, writesAmong } from './testing';

const { freshDb, reopen } = testDatabases('runs');

const runRow = testRunRow;

const point = (runId: string, name: string, step: number, value: number): MetricRow => ({
  runId: runId as RunId,
  name,
  step,
  value,
  ts: 1732900000 + step,
});

describe('claimRun', () => {
  it('moves a queued run to running with the given changes', async () => {
    const db = freshDb();
    await journalRun(db, runRow('r1'));
    const claimed = await claimRun(db, 'r1' as RunId, {
      startedAt: '2024-11-29T16:53:21.000Z',
      leaseUntil: 5,
    });
    expect(claimed).toMatchObject({ status: 'running', leaseUntil: 5 });
    expect(await db.runs.get('r1' as RunId)).toEqual(claimed);
  });

  it('is a compare-and-swap: of two concurrent claims exactly one wins', async () => {
    const db = freshDb();
    await journalRun(db, runRow('r1'));
    const outcomes = await Promise.allSettled([
      claimRun(db, 'r1' as RunId, { statusReason: 'engine A' }),
      claimRun(db, 'r1' as RunId, { statusReason: 'engine B' }),
    ]);
    const won = outcomes.filter((o) => o.status === 'fulfilled');
    const lost = outcomes.filter((o) => o.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0]!.reason).toMatchObject({ code: 'run-claimed' });
    expect((lost[0]!.reason as Error).message).toContain('not queued');
    const stored = await db.runs.get('r1' as RunId);
    expect(stored?.status).toBe('running');
    expect(stored?.statusReason).toBe(won[0]!.value.statusReason);
  });

  it('is a compare-and-swap across two connections to one database', async () => {
    const a = freshDb();
    const b = reopen(a);
    await journalRun(a, runRow('r1'));
    const outcomes = await Promise.allSettled([
      claimRun(a, 'r1' as RunId, {}),
      claimRun(b, 'r1' as RunId, {}),
    ]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
  });

  it('refuses a run that is not queued, or that does not exist', async () => {
    const db = freshDb();
    await journalRun(db, runRow('done', { status: 'cancelled' }));
    await expect(claimRun(db, 'done' as RunId, {})).rejects.toThrow(
      expect.objectContaining({ code: 'run-claimed' }),
    );
    await expect(claimRun(db, 'missing' as RunId, {})).rejects.toThrow(
      'run missing does not exist',
    );
    expect((await db.runs.get('done' as RunId))?.status).toBe('cancelled');
  });
});

describe('requestCancel', () => {
  const at = new Date('2024-11-29T16:53:30.000Z');

  it('cancels a queued run at once, with the reason a person sees', async () => {
    const db = freshDb();
    await journalRun(db, runRow('r1'));
    expect(await requestCancel(db, 'r1' as RunId, at)).toBe('cancelled');
    expect(await db.runs.get('r1' as RunId)).toMatchObject({
      status: 'cancelled',
      statusReason: 'Cancelled before it started',
      finishedAt: at.toISOString(),
    });
    await expect(claimRun(db, 'r1' as RunId, {})).rejects.toThrow(
      expect.objectContaining({ code: 'run-claimed' }),
    );
  });

  it('records the request on a running run, for the engine driving it to see', async () => {
    const db = freshDb();
    await journalRun(db, runRow('r1'));
    await claimRun(db, 'r1' as RunId, {});
    expect(await cancelRequested(db, 'r1' as RunId)).toBe(false);
    expect(await renewLease(db, 'r1' as RunId, 7)).toEqual({
      running: true,
      cancelRequested: false,
    });
    expect(await requestCancel(db, 'r1' as RunId, at)).toBe('requested');
    expect(await db.runs.get('r1' as RunId)).toMatchObject({
      status: 'running',
      cancelRequestedAt: at.toISOString(),
    });
    expect(await cancelRequested(db, 'r1' as RunId)).toBe(true);
    expect(await renewLease(db, 'r1' as RunId, 9)).toEqual({
      running: true,
      cancelRequested: true,
    });
    expect((await db.runs.get('r1' as RunId))?.leaseUntil).toBe(9);
  });

  it('leaves a run that has ended alone, and a lease is not renewed on it', async () => {
    const db = freshDb();
    await journalRun(db, runRow('done', { status: 'ok', leaseUntil: null }));
    expect(await requestCancel(db, 'done' as RunId, at)).toBe('ended');
    expect(await renewLease(db, 'done' as RunId, 9)).toEqual({
      running: false,
      cancelRequested: false,
    });
    expect(await db.runs.get('done' as RunId)).toMatchObject({
      status: 'ok',
      cancelRequestedAt: null,
      leaseUntil: null,
    });
  });
});

describe('claimNextRun', () => {
  const anyRun: QueueReader = () => null;
  const noWebgpu: QueueReader = (run) =>
    run.requires.includes('webgpu') ? 'Waiting for an engine with webgpu' : null;
  const created = (second: number) => `2024-11-29T16:53:${String(second).padStart(2, '0')}.000Z`;

  it('takes the oldest queued run, by creation time', async () => {
    const db = freshDb();
    await journalRun(db, runRow('b', { createdAt: created(2) }));
    await journalRun(db, runRow('a', { createdAt: created(3) }));
    await journalRun(db, runRow('c', { createdAt: created(1), status: 'running' }));
    await journalRun(db, runRow('d', { createdAt: created(2) }));
    const taken = [];
    const others = [];
    for (let i = 0; i < 4; i++) {
      const claimed = await claimNextRun(db, anyRun, {});
      taken.push(claimed?.run.id);
      others.push(claimed?.othersQueued);
    }
    expect(taken).toEqual(['b', 'd', 'a', undefined]);
    // Whether others still wait, as the claim read the queue: not after the last one.
    expect(others).toEqual([true, true, false, undefined]);
  });

  it('skips a run it cannot serve, saying why, and takes the next', async () => {
    const db = freshDb();
    await journalRun(db, runRow('gpu', { createdAt: created(1), requires: ['webgpu'] }));
    await journalRun(db, runRow('cpu', { createdAt: created(2) }));
    const claimed = await claimNextRun(db, noWebgpu, { statusReason: '', leaseUntil: 5 });
    expect(claimed?.run).toMatchObject({ id: 'cpu', status: 'running', leaseUntil: 5 });
    // The run it could not serve still waits.
    expect(claimed?.othersQueued).toBe(true);
    expect(await db.runs.get('gpu' as RunId)).toMatchObject({
      status: 'queued',
      statusReason: 'Waiting for an engine with webgpu',
    });
    expect(await claimNextRun(db, noWebgpu, {})).toBeUndefined();
    // An engine that can serve it takes it, and the waiting reason goes.
    expect((await claimNextRun(db, anyRun, { statusReason: '' }))?.run).toMatchObject({
      id: 'gpu',
      status: 'running',
      statusReason: '',
    });
  });

  it('says why queued runs wait, reading only what changed since the revision it returned', async () => {
    const db = freshDb();
    await journalRun(db, runRow('gpu', { createdAt: created(1), requires: ['webgpu'] }));
    await journalRun(db, runRow('cpu', { createdAt: created(2) }));
    const since = await sayWhyRunsWait(db, noWebgpu, -1);
    expect((await db.runs.get('gpu' as RunId))?.statusReason).toBe(
      'Waiting for an engine with webgpu',
    );
    expect((await db.runs.get('cpu' as RunId))?.status).toBe('queued');
    // A run journaled later gets its reason from the next call; the ones before are not read.
    await journalRun(db, runRow('gpu2', { createdAt: created(3), requires: ['webgpu'] }));
    await db.runs.update('gpu' as RunId, { statusReason: 'stale' });
    const next = await sayWhyRunsWait(db, noWebgpu, since);
    expect(next).toBeGreaterThan(since);
    expect((await db.runList.get('gpu2' as RunId))?.statusReason).toBe(
      'Waiting for an engine with webgpu',
    );
    expect((await db.runs.get('gpu' as RunId))?.statusReason).toBe('stale');
  });

  it('says why runs wait without a write when every run that changed is one it can serve, or told so already', async () => {
    const db = freshDb();
    const seen = transactionsOf(db);
    const writes = () => writesAmong(seen);
    await journalRun(db, runRow('cpu', { createdAt: created(1) }));
    await journalRun(db, runRow('gpu', { createdAt: created(2), requires: ['webgpu'] }));
    const journaled = writes().length;
    const since = await sayWhyRunsWait(db, noWebgpu, -1);
    expect(writes()).toHaveLength(journaled + 1); // the one reason to tell
    await sayWhyRunsWait(db, noWebgpu, -1);
    expect(writes()).toHaveLength(journaled + 1); // told already
    expect(await sayWhyRunsWait(db, noWebgpu, since)).toBe(since);
    expect(writes()).toHaveLength(journaled + 1);
    expect((await db.runList.get('gpu' as RunId))?.statusReason).toBe(
      'Waiting for an engine with webgpu',
    );
  });

  it('gives each of two engines taking at once a different run', async () => {
    const a = freshDb();
    const b = reopen(a);
    for (const id of ['r1', 'r2', 'r3']) await journalRun(a, runRow(id));
    const taken = await Promise.all([
      claimNextRun(a, anyRun, { statusReason: 'engine A' }),
      claimNextRun(b, anyRun, { statusReason: 'engine B' }),
    ]);
    expect(taken.map((claimed) => claimed?.run.id).sort()).toEqual(['r1', 'r2']);
    const stored = await runsByIds(a, ['r1', 'r2', 'r3'] as RunId[]);
    expect(stored.map((run) => run.status)).toEqual(['running', 'running', 'queued']);
    expect(
      stored
        .slice(0, 2)
        .map((run) => run.statusReason)
        .sort(),
    ).toEqual(['engine A', 'engine B']);
  });
});

describe('run rows', () => {
  it('lists runs newest first by their time-ordered id', async () => {
    const db = freshDb();
    for (const id of ['0002', '0001', '0003']) await journalRun(db, runRow(id));
    expect((await listRuns(db)).map((r) => r.id)).toEqual(['0003', '0002', '0001']);
  });

  it('lists the runs still marked active', async () => {
    const db = freshDb();
    await journalRun(db, runRow('q'));
    await journalRun(db, runRow('r', { status: 'running' }));
    await journalRun(db, runRow('ok', { status: 'ok' }));
    await journalRun(db, runRow('ab', { status: 'abandoned' }));
    expect((await activeRuns(db)).map((r) => r.id).sort()).toEqual(['q', 'r']);
  });

  it('refuses to journal a run id twice', async () => {
    const db = freshDb();
    await journalRun(db, runRow('r1'));
    await expect(journalRun(db, runRow('r1'))).rejects.toThrow();
  });
});

/** A finished run with every kind of row, written the way the engine writes it. */
async function writeFinishedRun(db: FlowbenchDb, id: string): Promise<void> {
  const runId = id as RunId;
  await journalRun(db, runRow(id));
  await claimRun(db, runId, { startedAt: '2024-11-29T16:53:21.000Z' });
  await putRunNodes(db, [
    { runId, node: 'data', status: 'ok', startedAt: 'x', durationMs: 3, error: '', logs: 'ok' },
    {
      runId,
      node: 'eval',
      status: 'skipped',
      startedAt: null,
      durationMs: null,
      error: 'e',
      logs: '',
    },
  ]);
  await putMetrics(db, [
    point(id, 'train.loss', 0, 2.3),
    point(id, 'train.loss', 1, Number.NaN),
    point(id, 'train.loss', 2, -0),
    point(id, 'train.loss', 3, Infinity),
    point(id, 'eval.accuracy', 0, 0.97),
  ]);
  await db.artifacts.add({
    runId,
    name: 'model',
    node: 'train',
    digest: 'sha256:00',
    size: 3,
    mediaType: 'application/onnx',
    bytes: new Uint8Array([1, 2, 3]),
  });
  await db.intervals.bulkAdd([
    { runId, kind: 'data_wait', start: 0, end: 0.1 },
    { runId, kind: 'quota_wait', start: 0.2, end: 0.25 },
  ]);
  await updateRun(db, runId, {
    status: 'ok',
    finishedAt: '2024-11-29T16:53:22.000Z',
    durationMs: 1000,
    result: { accuracy: 0.97 },
  });
}

function expectSameRecord(actual: RunRecord | undefined, expected: RunRecord) {
  expect(actual).toBeDefined();
  if (!actual) return;
  expect(actual.run).toEqual(expected.run);
  expect(actual.nodes).toEqual(expected.nodes);
  expect(actual.artifacts).toEqual(expected.artifacts);
  expect(actual.intervals).toEqual(expected.intervals);
  expect(actual.metrics.length).toBe(expected.metrics.length);
  actual.metrics.forEach((row, i) => {
    const want = expected.metrics[i]!;
    expect([row.runId, row.name, row.step, row.ts]).toEqual([
      want.runId,
      want.name,
      want.step,
      want.ts,
    ]);
    expect(Object.is(row.value, want.value)).toBe(true);
  });
}

describe('readRunRecord and importRunRecord', () => {
  it('round-trip a record into another database unchanged', async () => {
    const source = freshDb();
    await writeFinishedRun(source, 'r1');
    const record = await readRunRecord(source, 'r1' as RunId);
    expect(record?.run.status).toBe('ok');
    expect(record?.metrics).toHaveLength(5);
    expect(record?.intervals).toEqual([
      { runId: 'r1', kind: 'data_wait', start: 0, end: 0.1 },
      { runId: 'r1', kind: 'quota_wait', start: 0.2, end: 0.25 },
    ]);

    const target = freshDb();
    await importRunRecord(target, record!);
    expectSameRecord(await readRunRecord(target, 'r1' as RunId), record!);
  });

  it('import of an export gives back the same record (bytes excepted)', async () => {
    const source = freshDb();
    await writeFinishedRun(source, 'r1');
    const record = (await readRunRecord(source, 'r1' as RunId))!;
    const file = JSON.parse(JSON.stringify(toRunExport(record))) as unknown;
    const imported = fromRunExport(file);
    expect(imported.ok).toBe(true);
    if (!imported.ok) return;

    const target = freshDb();
    await importRunRecord(target, imported.record);
    expectSameRecord(await readRunRecord(target, 'r1' as RunId), {
      ...record,
      artifacts: record.artifacts.map((a) => ({ ...a, bytes: null })),
    });
  });

  it('refuses an id that exists and changes nothing', async () => {
    const db = freshDb();
    await writeFinishedRun(db, 'r1');
    const before = (await readRunRecord(db, 'r1' as RunId))!;
    const other: RunRecord = {
      run: runRow('r1', { status: 'error', statusReason: 'imported' }),
      nodes: [
        { ...before.nodes[0]!, status: 'error' },
        {
          runId: 'r1' as RunId,
          node: 'new',
          status: 'ok',
          startedAt: null,
          durationMs: 1,
          error: '',
          logs: '',
        },
      ],
      metrics: [point('r1', 'other.metric', 0, 1)],
      artifacts: [],
      intervals: [{ runId: 'r1' as RunId, kind: 'usage_throttle', start: 1, end: 2 }],
    };
    const error = await importRunRecord(db, other).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'run-exists' });
    expect((error as Error).message).toBe(
      'run r1 is already in this browser; it was not imported again',
    );
    expectSameRecord(await readRunRecord(db, 'r1' as RunId), before);
    expect(await db.intervals.count()).toBe(2);
  });

  it('imports nothing when any row of the record is refused', async () => {
    const db = freshDb();
    const record: RunRecord = {
      run: runRow('r9', { status: 'ok' }),
      nodes: [],
      // the same (run, name, step) twice: the add fails part way through
      metrics: [point('r9', 'm', 0, 1), point('r9', 'm', 0, 2)],
      artifacts: [],
      intervals: [],
    };
    await expect(importRunRecord(db, record)).rejects.toThrow();
    expect(await db.runs.get('r9' as RunId)).toBeUndefined();
    expect(await countMetricPoints(db)).toBe(0);
  });

  it('reads nothing for an unknown run', async () => {
    expect(await readRunRecord(freshDb(), 'nope' as RunId)).toBeUndefined();
  });

  it('keeps node outcomes per (run, node)', async () => {
    const db = freshDb();
    const row = {
      runId: 'r1' as RunId,
      node: 'a',
      startedAt: null,
      durationMs: null,
      error: '',
      logs: '',
    };
    await putRunNodes(db, [{ ...row, status: 'queued' }]);
    await putRunNodes(db, [{ ...row, status: 'running' }]);
    await putRunNodes(db, [{ ...row, status: 'ok' }]);
    expect((await runNodes(db, 'r1' as RunId)).map((n) => n.status)).toEqual(['ok']);
  });
});

describe('deleteRuns', () => {
  it('deletes finished runs with their nodes, metrics, artifacts and intervals, and nothing else', async () => {
    const db = freshDb();
    await writeFinishedRun(db, 'gone');
    await writeFinishedRun(db, 'kept');
    await deleteRuns(db, ['gone' as RunId]);
    expect(await readRunRecord(db, 'gone' as RunId)).toBeUndefined();
    for (const table of [db.runNodes, db.metrics, db.artifacts, db.intervals])
      expect(await table.where('runId').equals('gone').count()).toBe(0);
    const kept = await readRunRecord(db, 'kept' as RunId);
    expect(kept?.metrics).toHaveLength(5);
    expect(kept?.nodes).toHaveLength(2);
  });

  it('refuses to delete a queued or running run, and deletes nothing', async () => {
    const db = freshDb();
    await writeFinishedRun(db, 'done');
    await journalRun(db, runRow('waiting'));
    await expect(deleteRuns(db, ['done', 'waiting'] as RunId[])).rejects.toThrow(
      /cancel waiting first/,
    );
    expect(await db.runs.count()).toBe(2);
    expect(await countMetricPoints(db, 'done' as RunId)).toBe(5);
  });
});
