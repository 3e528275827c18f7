/**
 * Node outcomes are written in batches: a change marks its node, and the
 * marked rows go to storage together, so a run of many nodes writes a few
 * transactions, not one per node and change.
 */
import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { createCatalog } from '../../src/core/catalog/catalog';
import { defineNodeKind } from '../../src/core/catalog/kind';
import type { FlowDocument } from '../../src/core/flow/document';
import type { RunId } from '../../src/core/run/record';
import { runNodes } from '../../src/db/run-nodes';
import { FlowbenchDb } from '../../src/db/schema';
import { refuseWrites } from '../../src/db/testing';
import { NodeOutcomes } from './node-outcomes';
import { driveRun } from './run-driver';
import { journalTestRun, manualTimers, testDriverOptions } from './testing';

/** NodeOutcomes on manual timers and a clock moved by hand; `written` holds each batch's [node, status]s. */
function outcomesOnHand(
  options: { maxRows?: number; fewRows?: number; land?: 'at once' | 'by hand' } = {},
) {
  const timers = manualTimers();
  let clock = 0;
  const written: [string, string][][] = [];
  const landings: (() => void)[] = [];
  const outcomes = new NodeOutcomes({
    runId: 'r' as RunId,
    write: (rows) => {
      written.push(rows.map((r) => [r.node, r.status]));
      if (options.land === 'by hand') return new Promise<void>((resolve) => landings.push(resolve));
      return undefined;
    },
    setTimer: timers.setTimer,
    now: () => clock,
    delayMs: 100,
    holdMs: 1_000,
    // Every status on the way waits its hold unless a test says how few nodes need not.
    fewRows: options.fewRows ?? 0,
    ...(options.maxRows !== undefined && { maxRows: options.maxRows }),
  });
  /** Move the clock on by `ms` and fire the timers that were due. */
  const after = (ms: number) => {
    clock += ms;
    timers.fireAll();
  };
  return { outcomes, written, landings, timers, after };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('NodeOutcomes', () => {
  it('writes the outcomes reached within its delay as one batch of each node’s latest row', () => {
    const { outcomes, written, timers, after } = outcomesOnHand();
    for (const node of ['a', 'b', 'c']) outcomes.queued(node);
    outcomes.update('a', { status: 'running' });
    outcomes.update('a', { status: 'ok', durationMs: 1 });
    outcomes.update('b', { status: 'running' });
    outcomes.update('b', { status: 'error', error: 'boom' });
    expect(written).toEqual([]); // the first batch waits like any other
    expect(timers.pending()).toBe(1);
    after(100);
    expect(written).toEqual([
      [
        ['a', 'ok'],
        ['b', 'error'],
      ],
    ]);
    // Only what changed since goes in the next batch.
    outcomes.update('a', { logs: 'hello' });
    outcomes.flush();
    expect(written[1]).toEqual([['a', 'ok']]);
    outcomes.flush();
    expect(written).toHaveLength(2);
  });

  it('writes a node queued or running only once that has lasted its hold, and a quick one once', () => {
    const { outcomes, written, timers, after } = outcomesOnHand();
    for (const node of ['quick', 'slow', 'waiting']) outcomes.queued(node);
    outcomes.update('quick', { status: 'running' });
    outcomes.update('slow', { status: 'running' });
    after(100);
    expect(written).toEqual([]); // all on their way, none for long
    after(400);
    outcomes.update('quick', { status: 'ok' });
    after(100);
    expect(written).toEqual([[['quick', 'ok']]]);
    // A second on, the slow node is still running and the last still queued: now they are written.
    after(500);
    expect(written[1]).toEqual([
      ['slow', 'running'],
      ['waiting', 'queued'],
    ]);
    expect(timers.pending()).toBe(0); // nothing left to look at again
    outcomes.update('slow', { status: 'ok' });
    after(100);
    expect(written[2]).toEqual([['slow', 'ok']]);
  });

  it('writes queued and running at once while only a few nodes are on their way', () => {
    const { outcomes, written, after } = outcomesOnHand({ fewRows: 2 });
    for (const node of ['a', 'b', 'c']) outcomes.queued(node);
    after(100);
    expect(written).toEqual([]); // three waiting: more than a few
    outcomes.update('a', { status: 'ok' });
    outcomes.update('b', { status: 'running' });
    after(100);
    expect(written).toEqual([
      [
        ['a', 'ok'],
        ['b', 'running'],
        ['c', 'queued'],
      ],
    ]);
  });

  it('holds the next batch while one is being written, then writes each node’s latest row once', async () => {
    const { outcomes, written, landings, timers, after } = outcomesOnHand({ land: 'by hand' });
    for (const node of ['a', 'b', 'c']) outcomes.queued(node);
    outcomes.update('a', { status: 'ok' });
    after(100);
    expect(written).toEqual([[['a', 'ok']]]); // being written
    outcomes.update('b', { status: 'ok' });
    after(100);
    outcomes.update('b', { status: 'ok', logs: 'late line' });
    after(100);
    expect(written).toHaveLength(1); // due, but the first batch has not landed
    landings.shift()!();
    await settle();
    expect(written[1]).toEqual([['b', 'ok']]);
    outcomes.update('c', { status: 'ok' });
    let taken: [string, string][] | null = null;
    void outcomes.takeLast().then((rows) => (taken = rows.map((r) => [r.node, r.status])));
    await settle();
    expect(taken).toBeNull(); // the last change waits for the second batch to land
    landings.shift()!();
    await settle();
    // Handed over for the ending's transaction, not written as a batch of its own.
    expect(taken).toEqual([['c', 'ok']]);
    expect(written).toHaveLength(2);
    expect(timers.pending()).toBe(0);
  });

  it('cuts no batch once closed: what a landing batch left goes with the ending, held statuses too', async () => {
    const { outcomes, written, landings, after } = outcomesOnHand({ land: 'by hand' });
    for (const node of ['a', 'b', 'late']) outcomes.queued(node);
    outcomes.update('a', { status: 'ok' });
    after(100);
    outcomes.update('b', { status: 'ok' });
    outcomes.update('late', { status: 'running' });
    after(100); // due while the first batch is written
    const last = outcomes.takeLast();
    landings.shift()!();
    expect((await last).map((r) => [r.node, r.status])).toEqual([
      ['b', 'ok'],
      ['late', 'running'],
    ]);
    expect(written).toEqual([[['a', 'ok']]]);
  });

  it('writes at once when a batch of outcomes is full', () => {
    const { outcomes, written } = outcomesOnHand({ maxRows: 4 });
    for (let i = 0; i < 10; i++) outcomes.queued(`n${i}`);
    expect(written).toEqual([]); // queued rows wait their hold
    for (let i = 0; i < 10; i++) outcomes.update(`n${i}`, { status: 'ok' });
    expect(written.map((batch) => batch.length)).toEqual([4, 4]);
    outcomes.flush();
    expect(written.map((batch) => batch.length)).toEqual([4, 4, 2]);
  });
});

const noop = defineNodeKind({
  kind: 'test.noop',
  title: 'No-op',
  category: 'data',
  description: 'Does nothing.',
  params: {},
  inputs: [],
  outputs: [],
  execute: () => Promise.resolve(),
});

let db: FlowbenchDb | undefined;
afterEach(async () => {
  db?.close();
  await db?.delete();
  db = undefined;
});

const opened = (held: FlowbenchDb) => (db = held);

describe('driveRun of a flow of many nodes', () => {
  it('writes the nodes of one run in batches, each node’s final outcome stored', async () => {
    const db = new FlowbenchDb(`node-outcomes-${crypto.randomUUID()}`);
    opened(db);
    const batches: number[] = [];
    refuseWrites(db, (write) => {
      if (write.table === 'runNodes') batches.push(write.rows.length);
      return false;
    });
    const count = 300;
    const flow: FlowDocument = {
      format: 'flowbench.flow/1',
      name: 'many',
      inputs: [],
      outputs: [],
      nodes: Array.from({ length: count }, (_, i) => ({
        id: `n${i}`,
        kind: 'test.noop',
        params: {},
        position: { x: 0, y: i * 10 },
      })),
      edges: [],
    };
    const id = await journalTestRun(db, flow, {});
    // No batch falls due by time: the run's nodes go in the one write its ending makes.
    const timers = manualTimers();
    const status = await driveRun(id, new AbortController().signal, {
      ...testDriverOptions(db),
      catalog: createCatalog([noop]),
      setTimer: timers.setTimer,
    });
    expect(status).toBe('ok');
    const stored = await runNodes(db, id);
    expect(stored).toHaveLength(count);
    expect(stored.every((row) => row.status === 'ok' && row.startedAt !== null)).toBe(true);
    // Three changes per node (queued, running, ok), one write for them all.
    expect(batches).toEqual([count]);
  });
});
