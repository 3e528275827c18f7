import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import type { RunId, RunNodeRow } from '../core/run/record';
import { cachedNodesOfRuns, liveCachedNodesOfRuns, type CachedNode } from './cache-links';
import { liveRunNodes, putRunNodes, runNodes, runNodesOfRuns } from './run-nodes';
import { testDatabases } from './testing';

const { freshDb } = testDatabases('run-nodes');

function outcome(runId: string, node: string, status: RunNodeRow['status']): RunNodeRow {
  return {
    runId: runId as RunId,
    node,
    status,
    startedAt: null,
    durationMs: null,
    error: '',
    logs: '',
  };
}

describe("a run's node outcomes", () => {
  it("are the run's rows alone, by node id", async () => {
    const db = freshDb();
    await putRunNodes(db, [
      outcome('r2', 'b', 'ok'),
      outcome('r1', 'b', 'ok'),
      outcome('r1', 'a', 'error'),
      outcome('r0', 'a', 'ok'),
    ]);
    expect((await runNodes(db, 'r1' as RunId)).map((row) => [row.node, row.status])).toEqual([
      ['a', 'error'],
      ['b', 'ok'],
    ]);
  });

  it('name the cached nodes of the runs asked for, each with the run that computed it', async () => {
    const db = freshDb();
    const cached = (runId: string, node: string, from: string): RunNodeRow => ({
      ...outcome(runId, node, 'cached'),
      cachedFrom: { runId: from as RunId, node },
    });
    await putRunNodes(db, [
      cached('r2', 'train', 'r1'),
      outcome('r2', 'eval', 'ok'),
      cached('r3', 'data', 'r1'),
      cached('r4', 'data', 'r1'),
      outcome('r1', 'train', 'ok'),
    ]);
    expect(await cachedNodesOfRuns(db, ['r3', 'r2', 'r1'] as RunId[])).toEqual([
      ['r3', 'data', 'r1'],
      ['r2', 'train', 'r1'],
    ]);
    expect(await cachedNodesOfRuns(db, [])).toEqual([]);
  });

  it('name the cached nodes live, from the rows the views of those runs share', async () => {
    const db = freshDb();
    await putRunNodes(db, [outcome('r1', 'data', 'running'), outcome('r2', 'data', 'ok')]);
    const told: CachedNode[][] = [];
    const watch = liveCachedNodesOfRuns(db, ['r1', 'r2'] as RunId[]).subscribe({
      next: (found) => told.push(found),
    });
    try {
      await expect.poll(() => told.length).toBe(1);
      expect(told[0]).toEqual([]);
      await putRunNodes(db, [
        { ...outcome('r1', 'data', 'cached'), cachedFrom: { runId: 'r2' as RunId, node: 'data' } },
      ]);
      await expect.poll(() => told.at(-1)).toEqual([['r1', 'data', 'r2']]);
    } finally {
      watch.unsubscribe();
    }
  });

  it('are read once for every view watching the same run, a later view told them at once', async () => {
    const db = freshDb();
    await putRunNodes(db, [outcome('r1', 'a', 'running')]);
    const first: RunNodeRow[][] = [];
    const watch = liveRunNodes(db, 'r1' as RunId).subscribe({ next: (rows) => first.push(rows) });
    try {
      const waitFor = async (check: () => boolean) => {
        for (let i = 0; i < 200 && !check(); i++)
          await new Promise((resolve) => setTimeout(resolve, 10));
        expect(check()).toBe(true);
      };
      await waitFor(() => first.length > 0);
      const later: RunNodeRow[][] = [];
      const second = liveRunNodes(db, 'r1' as RunId).subscribe({
        next: (rows) => later.push(rows),
      });
      expect(later[0]).toBe(first.at(-1));
      await putRunNodes(db, [outcome('r1', 'a', 'ok')]);
      await waitFor(() => later.at(-1)?.[0]?.status === 'ok');
      // Both views were told the one read's rows.
      expect(first.at(-1)).toBe(later.at(-1));
      second.unsubscribe();
    } finally {
      watch.unsubscribe();
    }
  });

  it("are read for many runs at once, each run's in the order asked", async () => {
    const db = freshDb();
    await putRunNodes(db, [
      outcome('r1', 'b', 'ok'),
      outcome('r2', 'a', 'ok'),
      outcome('r1', 'a', 'ok'),
    ]);
    const rows = await runNodesOfRuns(db, ['r2', 'none', 'r1'] as RunId[]);
    expect(rows.map((run) => run.map((row) => `${row.runId}.${row.node}`))).toEqual([
      ['r2.a'],
      [],
      ['r1.a', 'r1.b'],
    ]);
    expect(await runNodesOfRuns(db, [])).toEqual([]);
  });

  it("name the cached nodes live, a run some view watches through that view's read", async () => {
    const db = freshDb();
    await putRunNodes(db, [outcome('r1', 'data', 'running'), outcome('r2', 'data', 'ok')]);
    // The selected run: the canvas watches its rows already.
    const canvas = liveRunNodes(db, 'r1' as RunId).subscribe({});
    const told: CachedNode[][] = [];
    const watch = liveCachedNodesOfRuns(db, ['r1', 'r2', 'r3'] as RunId[]).subscribe({
      next: (found) => told.push(found),
    });
    try {
      await expect.poll(() => told.length).toBe(1);
      expect(told[0]).toEqual([]);
      const cachedFrom = (node: string, from: string): RunNodeRow => ({
        ...outcome('', node, 'cached'),
        cachedFrom: { runId: from as RunId, node },
      });
      await putRunNodes(db, [{ ...cachedFrom('data', 'r2'), runId: 'r1' as RunId }]);
      await expect.poll(() => told.at(-1)).toEqual([['r1', 'data', 'r2']]);
      await putRunNodes(db, [{ ...cachedFrom('data', 'r2'), runId: 'r3' as RunId }]);
      await expect
        .poll(() => told.at(-1))
        .toEqual([
          ['r1', 'data', 'r2'],
          ['r3', 'data', 'r2'],
        ]);
    } finally {
      watch.unsubscribe();
      canvas.unsubscribe();
    }
  });
});
