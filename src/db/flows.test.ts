import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { describeIssues } from '../core/flow/issues';
import { parseFlow } from '../core/flow/validate';
import { createFlow, firstFlow, listFlows, saveFlow, saveFlowOver } from './flows';
import { testDatabases } from './testing';

const parsed = parseFlow(
  JSON.parse(
    readFileSync(new URL('../examples/spirals-mlp.flow.json', import.meta.url), 'utf8'),
  ) as unknown,
);
if (!parsed.ok) throw new Error(describeIssues(parsed.issues));
const flow = parsed.flow;

const { freshDb } = testDatabases('flows');

describe('flow library', () => {
  it('adds the first flow once when two first visits ask at the same moment', async () => {
    const db = freshDb();
    // As React's development mode runs the start-up effect: twice, neither waiting.
    const [a, b] = await Promise.all([firstFlow(db, flow), firstFlow(db, flow)]);
    expect(await listFlows(db)).toHaveLength(1);
    expect(b.row.id).toBe(a.row.id);
    expect([a.created, b.created].sort()).toEqual([false, true]);
    // A library with flows gets nothing added: the flow saved last opens.
    await new Promise((resolve) => setTimeout(resolve, 5)); // a later save time
    const later = await createFlow(db, { ...flow, name: 'later' });
    expect(await firstFlow(db, flow)).toEqual({ row: later, created: false });
    expect(await listFlows(db)).toHaveLength(2);
  });

  it('creates a flow at version 1 and bumps the version on every save', async () => {
    const db = freshDb();
    const row = await createFlow(db, flow);
    expect(row.version).toBe(1);
    expect(await saveFlow(db, row.id, { ...flow, description: 'edited' })).toBe(2);
    expect(await saveFlow(db, row.id, { ...flow, name: 'renamed' })).toBe(3);
    const stored = await db.flows.get(row.id);
    expect(stored).toMatchObject({ version: 3, name: 'renamed' });
    expect(stored?.doc).toEqual({ ...flow, name: 'renamed' });
  });

  it('gives each of two concurrent saves its own version', async () => {
    const db = freshDb();
    const row = await createFlow(db, flow);
    const versions = await Promise.all([saveFlow(db, row.id, flow), saveFlow(db, row.id, flow)]);
    expect(versions.sort()).toEqual([2, 3]);
  });

  it('lists flows most recently saved first', async () => {
    const db = freshDb();
    const a = await createFlow(db, { ...flow, name: 'a' });
    await createFlow(db, { ...flow, name: 'b' });
    // Make the order independent of the wall clock's resolution.
    await db.flows.update(a.id, { updatedAt: '2999-01-01T00:00:00.000Z' });
    expect((await listFlows(db)).map((f) => f.name)).toEqual(['a', 'b']);
  });
});

describe('saving over a version', () => {
  it('saves over the version it read, and refuses (writing nothing) once another tab saved', async () => {
    const db = freshDb();
    const row = await createFlow(db, flow);
    expect(await saveFlowOver(db, row.id, { ...flow, name: 'mine' }, 1)).toEqual({ version: 2 });
    // Another tab still at version 1 saves: refused, with the row as it is.
    const late = await saveFlowOver(db, row.id, { ...flow, name: 'theirs' }, 1);
    expect('conflict' in late && late.conflict.version).toBe(2);
    expect((await db.flows.get(row.id))?.doc.name).toBe('mine');
  });
});
