import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import type { FlowId } from '../core/run/record';
import { FlowbenchDb } from './schema';
import { testDatabases } from './testing';
import { pendulumExample } from '../core/nodes/testing';
import {
  changeSetting,
  dropUnsavedEdit,
  readSetting,
  stashUnsavedEdit,
  takeUnsavedEdit,
  writeSetting,
} from './settings';

const { freshDb, reopen } = testDatabases('settings');

describe('settings', () => {
  it('keeps settings across connections', async () => {
    const db = freshDb();
    await writeSetting(db, 'openFlow', 'x' as FlowId);
    const again = reopen(db);
    expect(await readSetting(again, 'openFlow')).toBe('x');
    expect(await readSetting(again, 'backend')).toBeUndefined();
  });

  it('keeps Use cache turned off across connections, and reads a value not a yes or no as not set', async () => {
    const db = freshDb();
    expect(await readSetting(db, 'useCache')).toBeUndefined();
    await writeSetting(db, 'useCache', false);
    const again = reopen(db);
    expect(await readSetting(again, 'useCache')).toBe(false);
    await db.settings.put({ key: 'use-cache', value: 'no' });
    expect(await readSetting(again, 'useCache')).toBeUndefined();
  });

  it('reads the rows earlier releases wrote, under the keys they wrote them', async () => {
    const db = freshDb();
    await db.settings.bulkPut([
      { key: 'openFlow', value: 'f1' },
      { key: 'backend', value: 'wasm' },
      { key: 'pool-budgets', value: { webgpu: 64e6 } },
    ]);
    expect(await readSetting(db, 'openFlow')).toBe('f1');
    expect(await readSetting(db, 'backend')).toBe('wasm');
    expect(await readSetting(db, 'poolBudgets')).toEqual({ webgpu: 64e6 });
  });

  it('reads a stored value that is not of its type as not set, keeping what fits', async () => {
    const db = freshDb();
    await db.settings.bulkPut([
      { key: 'openFlow', value: { id: 'x' } },
      { key: 'backend', value: 'cuda' },
      { key: 'pool-budgets', value: { wasm: 'lots', webgpu: 32e6 } },
    ]);
    expect(await readSetting(db, 'openFlow')).toBeUndefined();
    expect(await readSetting(db, 'backend')).toBeUndefined();
    expect(await readSetting(db, 'poolBudgets')).toEqual({ webgpu: 32e6 });
  });

  it('keeps the engine timings that are a sane wait, dropping the rest', async () => {
    const db = freshDb();
    await db.settings.put({
      key: 'engine-timings',
      value: { leaseMs: 3000, sweepMs: 0, storageStallMs: '5s', pollMs: 100 },
    });
    expect(await readSetting(db, 'engineTimings')).toEqual({ leaseMs: 3000 });
    await db.settings.put({ key: 'engine-timings', value: 3000 });
    expect(await readSetting(db, 'engineTimings')).toEqual({});
  });

  it('changes a setting from its value now, losing no concurrent change', async () => {
    const db = freshDb();
    await Promise.all([
      changeSetting(db, 'poolBudgets', (before) => ({ ...before, wasm: 1 })),
      changeSetting(db, 'poolBudgets', (before) => ({ ...before, webgpu: 2 })),
    ]);
    expect(await readSetting(db, 'poolBudgets')).toEqual({ wasm: 1, webgpu: 2 });
  });
});

async function freshOpenDb(): Promise<FlowbenchDb> {
  const db = freshDb();
  await db.open();
  return db;
}

const flowId = 'flow-1' as FlowId;

describe('unsaved edits', () => {
  it('keeps an edit written as a page goes away, for the next connection, once', async () => {
    const db = await freshOpenDb();
    const doc = pendulumExample();
    // Nothing awaited: a closing page gets no callback after its handler.
    stashUnsavedEdit(db, { flowId, base: 3, doc });
    db.close();

    const again = reopen(db);
    expect(await takeUnsavedEdit(again, flowId)).toEqual({ flowId, base: 3, doc });
    expect(await takeUnsavedEdit(again, flowId)).toBeUndefined();
    again.close();
  });

  it('is dropped by a save over the version it was made on, and only by that one', async () => {
    const db = await freshOpenDb();
    stashUnsavedEdit(db, { flowId, base: 3, doc: pendulumExample() });
    await dropUnsavedEdit(db, flowId, 2);
    await dropUnsavedEdit(db, 'other' as FlowId, 3);
    expect((await takeUnsavedEdit(db, flowId))?.base).toBe(3);

    stashUnsavedEdit(db, { flowId, base: 3, doc: pendulumExample() });
    await dropUnsavedEdit(db, flowId, 3);
    expect(await takeUnsavedEdit(db, flowId)).toBeUndefined();
  });
});
