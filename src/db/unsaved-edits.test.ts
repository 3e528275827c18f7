import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { pendulumExample } from '../core/nodes/testing';
import type { FlowId } from '../core/run/record';
import { FlowbenchDb } from './schema';
import { dropUnsavedEdit, stashUnsavedEdit, takeUnsavedEdit } from './unsaved-edits';

const opened: FlowbenchDb[] = [];
async function openDb(): Promise<FlowbenchDb> {
  const db = new FlowbenchDb(`flowbench-test-unsaved-${crypto.randomUUID()}`);
  opened.push(db);
  await db.open();
  return db;
}
afterEach(async () => {
  for (const db of opened.splice(0)) await db.delete();
});

const flowId = 'flow-1' as FlowId;

describe('unsaved edits', () => {
  it('keeps an edit written as a page goes away, for the next connection, once', async () => {
    const db = await openDb();
    const doc = pendulumExample();
    // Nothing awaited: a closing page gets no callback after its handler.
    stashUnsavedEdit(db, { flowId, base: 3, doc });
    db.close();

    const again = new FlowbenchDb(db.name);
    opened.push(again);
    expect(await takeUnsavedEdit(again, flowId)).toEqual({ flowId, base: 3, doc });
    expect(await takeUnsavedEdit(again, flowId)).toBeUndefined();
    again.close();
  });

  it('is dropped by a save over the version it was made on, and only by that one', async () => {
    const db = await openDb();
    stashUnsavedEdit(db, { flowId, base: 3, doc: pendulumExample() });
    await dropUnsavedEdit(db, flowId, 2);
    await dropUnsavedEdit(db, 'other' as FlowId, 3);
    expect((await takeUnsavedEdit(db, flowId))?.base).toBe(3);

    stashUnsavedEdit(db, { flowId, base: 3, doc: pendulumExample() });
    await dropUnsavedEdit(db, flowId, 3);
    expect(await takeUnsavedEdit(db, flowId)).toBeUndefined();
  });
});
