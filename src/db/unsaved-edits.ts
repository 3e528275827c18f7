/**
 * Edits a page had not saved when it went away, kept to be recovered when
 * the flow is next opened.
 *
 * A page being closed runs its `pagehide` handler and nothing after it: no
 * promise settles, no IndexedDB callback fires. A checked save (read the
 * version, then write over it) needs a callback between the two, so it never
 * lands. What does land is one write issued inside the handler and committed
 * at once, so the edit is written blind to a key of its own, with the library
 * version it was made on (`base`). The next open applies it over that version,
 * or, when another tab saved since, asks as for any conflict: no tab's edits
 * are overwritten.
 *
 * Kept in the settings table under `unsaved-edit:<flow id>`, a key this
 * module owns (the table holds small values by key; see `settings.ts`).
 */
import { flowDocumentSchema, type FlowDocument } from '../core/flow/document';
import type { FlowId } from '../core/run/record';
import type { FlowbenchDb } from './schema';

/** The open document of a flow, not yet saved, and the library version it was made on. */
export interface UnsavedEdit {
  flowId: FlowId;
  /** The library version the edits stand on. */
  base: number;
  doc: FlowDocument;
}

const keyOf = (flowId: FlowId) => `unsaved-edit:${flowId}`;

/**
 * Keep `edit` with one write, issued before this returns and committed at
 * once: for a page that is going away. Fire and forget: a page closing has
 * no one left to tell of a failure.
 */
export function stashUnsavedEdit(db: FlowbenchDb, edit: UnsavedEdit): void {
  const row = { key: keyOf(edit.flowId), value: { base: edit.base, doc: edit.doc } };
  if (!db.isOpen()) {
    // Not reached in the app (the open flow was read through `db`); a write
    // that waits for the database to open is the best left.
    void db.settings.put(row).catch(() => undefined);
    return;
  }
  const transaction = db.backendDB().transaction('settings', 'readwrite');
  transaction.objectStore('settings').put(row);
  transaction.commit();
}

/** The unsaved edit of `flowId`, removed from the store as it is read. */
export async function takeUnsavedEdit(
  db: FlowbenchDb,
  flowId: FlowId,
): Promise<UnsavedEdit | undefined> {
  const row = await db.transaction('rw', db.settings, async () => {
    const found = await db.settings.get(keyOf(flowId));
    if (found) await db.settings.delete(keyOf(flowId));
    return found;
  });
  const value = row?.value as { base?: unknown; doc?: unknown } | undefined;
  // Written by this page's code, maybe of an earlier release: a value that no longer fits is let go.
  const doc = flowDocumentSchema.safeParse(value?.doc);
  if (!doc.success || typeof value?.base !== 'number') return undefined;
  return { flowId, base: value.base, doc: doc.data };
}

/**
 * Forget the unsaved edit of `flowId` made on version `base`, once a save
 * holding it has landed (a page hidden, not closed, saves it after all). An
 * edit made on another version (another tab's) is kept.
 */
export async function dropUnsavedEdit(
  db: FlowbenchDb,
  flowId: FlowId,
  base: number,
): Promise<void> {
  await db.transaction('rw', db.settings, async () => {
    const found = await db.settings.get(keyOf(flowId));
    const value = found?.value as { base?: unknown } | undefined;
    if (value?.base === base) await db.settings.delete(keyOf(flowId));
  });
}
