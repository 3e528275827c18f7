import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import type { RunId } from '../core/run/record';
import { metricNames, putMetrics } from './metrics';
import {
  lastMetricKeysOfRuns,
  metricColumnsReader,
  metricNamesOfRuns,
  metricSeriesFirstOfRuns,
  metricSeriesLastOfRuns,
} from './metrics-of-runs';
import type { FlowbenchDb } from './schema';
import { metricPoints, testDatabases, transactionsOf } from './testing';

const { freshDb, reopen } = testDatabases('metrics-of-runs');

const points = metricPoints;

/** A second connection to `db` that counts the transactions its reads open. */
function counted(db: FlowbenchDb): { reader: FlowbenchDb; transactions: () => number } {
  const reader = reopen(db);
  const seen = transactionsOf(reader);
  return { reader, transactions: () => seen.length };
}

const ids = (...names: string[]) => names as RunId[];

describe("many runs' metrics", () => {
  it('names every metric of a run once, however many names and chunks it has', async () => {
    const db = freshDb();
    // More names than one read of keys takes, and a series of three chunks among them.
    const names = Array.from({ length: 70 }, (_, i) => `m${String(i).padStart(2, '0')}.loss`);
    await putMetrics(db, [
      ...names.flatMap((name) => points('r1', name, 0, 1)),
      ...points('r1', 'm03.loss', 1, 5000),
      ...points('r2', 'other.loss', 0, 1),
    ]);
    expect(await metricNames(db, 'r1' as RunId)).toEqual(names);
    expect(await metricNames(db, 'r3' as RunId)).toEqual([]);
  });

  it('reads each run in the order asked, all of them in one transaction', async () => {
    const db = freshDb();
    await putMetrics(db, [
      ...points('r1', 'train.loss', 0, 5),
      ...points('r1', 'eval.acc', 0, 1),
      ...points('r2', 'train.loss', 3, 9),
    ]);
    const { reader, transactions } = counted(db);
    await reader.open();
    const before = transactions();

    expect(await metricNamesOfRuns(reader, ids('r2', 'none', 'r1'))).toEqual([
      ['train.loss'],
      [],
      ['eval.acc', 'train.loss'],
    ]);
    expect(transactions() - before).toBe(1);

    expect(await lastMetricKeysOfRuns(reader, ids('r1', 'none', 'r2'))).toEqual([
      ['r1', 'train.loss', 0],
      undefined,
      ['r2', 'train.loss', 3],
    ]);
    const firsts = await metricSeriesFirstOfRuns(reader, ids('r2', 'r1', 'none'), 'train.loss');
    expect(firsts.map((p) => p?.step)).toEqual([3, 0, undefined]);
    const ends = await metricSeriesLastOfRuns(reader, ids('r2', 'r1', 'none'), 'train.loss');
    expect(ends.map((p) => p && [p.step, p.value])).toEqual([[8, 0.8], [4, 0.4], undefined]);
    expect(transactions() - before).toBe(4);
    expect(await metricNamesOfRuns(reader, [])).toEqual([]);
  });

  it('reads the series asked for in one task together, each told its own points or failure', async () => {
    const db = freshDb();
    await putMetrics(db, [
      ...points('r1', 'train.loss', 0, 5),
      ...points('r2', 'train.loss', 0, 3),
    ]);
    const { reader, transactions } = counted(db);
    await reader.open();
    const before = transactions();
    const read = metricColumnsReader(reader);
    const [first, past, missing, broken] = await Promise.allSettled([
      read({ runId: 'r1' as RunId, name: 'train.loss', after: undefined, limit: 100 }),
      read({ runId: 'r2' as RunId, name: 'train.loss', after: 0, limit: 100 }),
      read({ runId: 'r3' as RunId, name: 'train.loss', after: undefined, limit: 100 }),
      // Not a valid key: this read fails, the others do not.
      read({ runId: null as unknown as RunId, name: 'train.loss', after: undefined, limit: 100 }),
    ]);
    expect(transactions() - before).toBe(1);
    expect(first.status === 'fulfilled' && [...first.value.step]).toEqual([0, 1, 2, 3, 4]);
    expect(past.status === 'fulfilled' && [...past.value.step]).toEqual([1, 2]);
    expect(missing.status === 'fulfilled' && missing.value.length).toBe(0);
    expect(broken.status).toBe('rejected');

    // A read asked for later is a transaction of its own.
    expect([
      ...(await read({ runId: 'r1' as RunId, name: 'train.loss', after: 3, limit: 1 })).step,
    ]).toEqual([4]);
    expect(transactions() - before).toBe(2);
  });
});
