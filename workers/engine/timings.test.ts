import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { ENGINE_TIMING_DEFAULTS, writeSetting } from '../../src/db/settings';
import { testDatabases } from '../../src/db/testing';
import { engineTimings } from './timings';

const { freshDb } = testDatabases('timings');

describe('engineTimings', () => {
  it('waits as by default until the setting is read, then as it says, keeping the defaults it leaves out', async () => {
    const db = freshDb();
    await writeSetting(db, 'engineTimings', { leaseMs: 4_000, storageStallMs: 5_000 });
    const timings = engineTimings(db);
    expect(timings.now()).toEqual(ENGINE_TIMING_DEFAULTS);
    await timings.read;
    expect(timings.now()).toEqual({
      leaseMs: 4_000,
      sweepMs: ENGINE_TIMING_DEFAULTS.sweepMs,
      storageStallMs: 5_000,
    });
  });

  it('keeps the defaults where nothing is set', async () => {
    const timings = engineTimings(freshDb());
    await timings.read;
    expect(timings.now()).toEqual({ leaseMs: 10_000, sweepMs: 5_000, storageStallMs: 30_000 });
  });
});
