/**
 * The run list: every write of a run that a list shows writes its small
 * entry, and a reader that holds the list reads only what changed — a status
 * change is one entry, a lease renewal none.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { runEntrySchema } from '../core/records/run-entry';
import type { RunId, RunRow } from '../core/run/record';
import type { RunEntry } from '../core/run/run-entry';
import {
  RunListMirror,
  listRunEntries,
  liveRunList,
  runEntriesOfGroup,
  runEntriesSince,
} from './run-list';
import {
  claimRun,
  deleteRuns,
  endRun,
  journalRun,
  queuedRuns,
  renewLease,
  requestCancel,
  updateRun,
} from './runs';
import { testDatabases, testRunRow } from './testing';

const { freshDb } = testDatabases('run-list');

/** A queued run of a sweep. */
const runRow = (id: string, overrides: Partial<RunRow> = {}): RunRow =>
  testRunRow(id, { seed: 3, groupId: 'sweep-1', cause: 'sweep', ...overrides });

const lastRev = (entries: readonly RunEntry[]) => Math.max(0, ...entries.map((e) => e.rev));

describe('the run list', () => {
  it('holds each run as a small entry: what it ran with, never its flow', async () => {
    const db = freshDb();
    await journalRun(db, runRow('r1'));
    const [entry] = await listRunEntries(db);
    expect(runEntrySchema.safeParse(entry).success).toBe(true);
    expect(entry).not.toHaveProperty('flowSnapshot');
    expect(entry).not.toHaveProperty('leaseUntil');
    expect(entry).toMatchObject({
      id: 'r1',
      status: 'queued',
      groupId: 'sweep-1',
      backend: 'auto',
    });
    // The flow's defaults fill what the request left out, as the table shows the run.
    expect(entry!.params.lr).toBe(0.1);
    expect(Object.keys(entry!.params).length).toBeGreaterThan(1);
  });

  it('a status change touches one entry; a lease renewal touches none', async () => {
    const db = freshDb();
    for (const id of ['r1', 'r2', 'r3']) await journalRun(db, runRow(id));
    const before = lastRev(await listRunEntries(db));

    await claimRun(db, 'r2' as RunId, { startedAt: '2024-11-29T16:53:21.000Z', leaseUntil: 5 });
    const claimed = await runEntriesSince(db, before);
    expect(claimed.map((e) => [e.id, e.status])).toEqual([['r2', 'running']]);

    await renewLease(db, 'r2' as RunId, 10_000);
    await requestCancel(db, 'r2' as RunId, new Date());
    await updateRun(db, 'r2' as RunId, { leaseUntil: 20_000 });
    expect(await runEntriesSince(db, lastRev(claimed))).toEqual([]);

    await endRun(
      db,
      'r2' as RunId,
      { status: 'ok', result: { accuracy: 0.9 }, durationMs: 12, finishedAt: 'x' },
      { onlyWhileRunning: true },
    );
    const ended = await runEntriesSince(db, lastRev(claimed));
    expect(ended).toHaveLength(1);
    expect(ended[0]).toMatchObject({ id: 'r2', status: 'ok', result: { accuracy: 0.9 } });
    expect(await runEntriesOfGroup(db, 'sweep-1')).toHaveLength(3);
  });

  it('a held list takes the changed entries and keeps every other entry as it was', async () => {
    const db = freshDb();
    for (const id of ['r1', 'r2', 'r3']) await journalRun(db, runRow(id));
    const mirror = new RunListMirror();
    mirror.reset(await listRunEntries(db), undefined);
    const held = mirror.current;
    expect(held.map((e) => e.id)).toEqual(['r3', 'r2', 'r1']);

    await updateRun(db, 'r1' as RunId, { status: 'cancelled' });
    expect(mirror.apply(await runEntriesSince(db, mirror.rev))).toBe(true);
    const now = mirror.current;
    expect(now).not.toBe(held);
    expect(now.map((e) => [e.id, e.status])).toEqual([
      ['r3', 'queued'],
      ['r2', 'queued'],
      ['r1', 'cancelled'],
    ]);
    expect(now[0]).toBe(held[0]);
    expect(now[1]).toBe(held[1]);
    // Nothing new: the same array, so nothing re-renders.
    expect(mirror.apply(await runEntriesSince(db, mirror.rev))).toBe(false);
    expect(mirror.current).toBe(now);
  });

  it('gives the queue what each queued run requires, oldest first, from the entries alone', async () => {
    const db = freshDb();
    await journalRun(db, runRow('r2', { requires: ['webgpu'] }));
    await journalRun(
      db,
      runRow('r1', { requires: ['wasm'], createdAt: '2024-11-29T16:53:21.000Z' }),
    );
    await journalRun(db, runRow('r3', { status: 'ok' }));
    await db.runs.clear();
    expect((await queuedRuns(db)).map((run) => [run.id, run.requires])).toEqual([
      ['r2', ['webgpu']],
      ['r1', ['wasm']],
    ]);
  });

  it('is followed live, deletions included', async () => {
    const db = freshDb();
    await journalRun(db, runRow('r1', { status: 'ok' }));
    const seen: (readonly RunEntry[])[] = [];
    const waitFor = async (check: (list: readonly RunEntry[]) => boolean) => {
      for (let i = 0; i < 200; i++) {
        if (seen.length > 0 && check(seen.at(-1)!)) return;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error(`the list never matched: ${JSON.stringify(seen.at(-1)?.map((e) => e.id))}`);
    };
    const watch = liveRunList(db).subscribe({ next: (list) => seen.push(list) });
    try {
      await waitFor((list) => list.length === 1);
      await journalRun(db, runRow('r2'));
      await waitFor((list) => list.map((e) => e.id).join() === 'r2,r1');
      await deleteRuns(db, ['r1' as RunId]);
      await waitFor((list) => list.map((e) => e.id).join() === 'r2');
    } finally {
      watch.unsubscribe();
    }
  });
  it('is one read for every watcher: a watcher that comes later gets the list held at once', async () => {
    const db = freshDb();
    await journalRun(db, runRow('r1', { status: 'ok' }));
    const first: (readonly RunEntry[])[] = [];
    const watch = liveRunList(db).subscribe({ next: (list) => first.push(list) });
    try {
      for (let i = 0; i < 200 && first.length === 0; i++)
        await new Promise((resolve) => setTimeout(resolve, 10));
      const later: (readonly RunEntry[])[] = [];
      liveRunList(db)
        .subscribe({ next: (list) => later.push(list) })
        .unsubscribe();
      // Told before subscribe returned, the very list the first watcher holds.
      expect(later).toEqual([first.at(-1)]);
      expect(later[0]).toBe(first.at(-1));
    } finally {
      watch.unsubscribe();
    }
  });
});
