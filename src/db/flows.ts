/** The flow library, flows autosaved as they are edited: every read and write of the flows table. */
import type { FlowDocument } from '../core/flow/document';
import type { FlowId } from '../core/run/record';
import type { FlowbenchDb, FlowRow } from './schema';

export function newFlowId(): FlowId {
  return crypto.randomUUID() as FlowId;
}

function newFlowRow(doc: FlowDocument): FlowRow {
  return { id: newFlowId(), name: doc.name, doc, version: 1, updatedAt: new Date().toISOString() };
}

export async function createFlow(db: FlowbenchDb, doc: FlowDocument): Promise<FlowRow> {
  const row = newFlowRow(doc);
  await db.flows.add(row);
  return row;
}

/**
 * The flow to open when none is remembered: the one saved last, or `doc`
 * added to a library that is empty (`created`). Looking and adding are one
 * transaction, so two first visits at once (two tabs opened together, or
 * React running a start-up effect twice in development) add it once.
 */
export async function firstFlow(
  db: FlowbenchDb,
  doc: FlowDocument,
): Promise<{ row: FlowRow; created: boolean }> {
  return db.transaction('rw', db.flows, async () => {
    const last = await db.flows.orderBy('updatedAt').last();
    if (last) return { row: last, created: false };
    const row = newFlowRow(doc);
    await db.flows.add(row);
    return { row, created: true };
  });
}

/** Save a changed document; bumps the version. Returns the saved version. */
export async function saveFlow(db: FlowbenchDb, id: FlowId, doc: FlowDocument): Promise<number> {
  return db.transaction('rw', db.flows, async () => {
    const row = await db.flows.get(id);
    const version = (row?.version ?? 0) + 1;
    await db.flows.put({ id, name: doc.name, doc, version, updatedAt: new Date().toISOString() });
    return version;
  });
}

/**
 * Save a changed document over version `expected` only. When the stored row
 * is at another version, another tab saved it since: nothing is written and
 * that row comes back, so the caller can ask the person instead of
 * overwriting their edits.
 */
export async function saveFlowOver(
  db: FlowbenchDb,
  id: FlowId,
  doc: FlowDocument,
  expected: number,
): Promise<{ version: number } | { conflict: FlowRow }> {
  return db.transaction('rw', db.flows, async () => {
    const row = await db.flows.get(id);
    if (row && row.version !== expected) return { conflict: row };
    const version = (row?.version ?? 0) + 1;
    await db.flows.put({ id, name: doc.name, doc, version, updatedAt: new Date().toISOString() });
    return { version };
  });
}

/** The flow `id`, or `undefined` when it is not in the library. */
export function getFlow(db: FlowbenchDb, id: FlowId): Promise<FlowRow | undefined> {
  return db.flows.get(id);
}

/** The library, most recently saved first. */
export function listFlows(db: FlowbenchDb): Promise<FlowRow[]> {
  return db.flows.orderBy('updatedAt').reverse().toArray();
}

/** Delete a flow from the library. Its runs stay: they keep their own snapshot of it. */
export async function deleteFlow(db: FlowbenchDb, id: FlowId): Promise<void> {
  await db.flows.delete(id);
}
