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
import type { RunId, RunNodeRow } from '../../src/core/run/record';
import { runNodes } from '../../src/db/run-nodes';
import { FlowbenchDb } from '../../src/db/schema';
import { refuseWrites } from '../../src/db/testing';
import { NodeOutcomes } from './node-outcomes';
import { driveRun } from './run-driver';
import { journalTestRun, manualTimers, testDriverOptions } from './testing';

describe('NodeOutcomes', () => {
  it('writes the changes made within its delay as one batch of each node’s latest row', async () => {
    const timers = manualTimers();
    const written: RunNodeRow[][] = [];
    const outcomes = new NodeOutcomes({
      runId: 'r' as RunId,
      write: (rows) => written.push([...rows]),
      setTimer: timers.setTimer,
      delayMs: 100,
    });
    outcomes.queued('first');
    await Promise.resolve();
    expect(written).toEqual([]); // the first batch waits like any other
    timers.fireAll();
    expect(written).toEqual([[expect.objectContaining({ node: 'first', status: 'queued' })]]);
    written.length = 0;
    for (const node of ['a', 'b', 'c']) outcomes.queued(node);
    outcomes.update('a', { status: 'running' });
    outcomes.update('a', { status: 'ok', durationMs: 1 });
    expect(written).toEqual([]);
    expect(timers.pending()).toBe(1);
    timers.fireAll();
    expect(written).toHaveLength(1);
    expect(written[0]!.map((r) => [r.node, r.status])).toEqual([
      ['a', 'ok'],
      ['b', 'queued'],
      ['c', 'queued'],
    ]);
    // Only what changed since goes in the next batch.
    outcomes.update('c', { logs: 'hello' });
    outcomes.flush();
    expect(written[1]!.map((r) => [r.node, r.logs])).toEqual([['c', 'hello']]);
    outcomes.flush();
    expect(written).toHaveLength(2);
  });

  it('holds the next batch while one is being written, then writes each node’s latest row once', async () => {
    const timers = manualTimers();
    const written: [string, string][][] = [];
    const landings: (() => void)[] = [];
    const outcomes = new NodeOutcomes({
      runId: 'r' as RunId,
      write: (rows) => {
        written.push(rows.map((r) => [r.node, r.status]));
        return new Promise<void>((resolve) => landings.push(resolve));
      },
      setTimer: timers.setTimer,
      delayMs: 100,
    });
    outcomes.queued('a');
    outcomes.queued('b');
    timers.fireAll();
    expect(written).toHaveLength(1); // every node queued, being written
    outcomes.update('a', { status: 'running' });
    timers.fireAll();
    outcomes.update('a', { status: 'ok' });
    outcomes.update('b', { status: 'running' });
    timers.fireAll();
    expect(written).toHaveLength(1); // due twice, but the first batch has not landed
    landings.shift()!();
    await new Promise((resolve) => setTimeout(resolve, 0));
    // `b` started since the first batch was cut: its `running` waits for the next batch.
    expect(written).toEqual([
      [
        ['a', 'queued'],
        ['b', 'queued'],
      ],
      [['a', 'ok']],
    ]);
    outcomes.update('b', { status: 'ok' });
    let taken: [string, string][] | null = null;
    void outcomes.takeLast().then((rows) => (taken = rows.map((r) => [r.node, r.status])));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(taken).toBeNull(); // the last change waits for the second batch to land
    landings.shift()!();
    await new Promise((resolve) => setTimeout(resolve, 0));
    // Handed over for the ending's transaction, not written as a batch of its own.
    expect(taken).toEqual([['b', 'ok']]);
    expect(written).toHaveLength(2);
    expect(timers.pending()).toBe(0);
  });

  it('writes a node that starts and ends between two batches once, and a slow one running a batch later', async () => {
    const timers = manualTimers();
    const written: [string, string][][] = [];
    const outcomes = new NodeOutcomes({
      runId: 'r' as RunId,
      write: (rows) => written.push(rows.map((r) => [r.node, r.status])),
      setTimer: timers.setTimer,
      delayMs: 100,
    });
    for (const node of ['quick', 'slow']) outcomes.queued(node);
    timers.fireAll();
    outcomes.update('quick', { status: 'running' });
    outcomes.update('slow', { status: 'running' });
    timers.fireAll();
    expect(written).toHaveLength(1); // both just started: nothing to write yet
    outcomes.update('quick', { status: 'ok' });
    timers.fireAll();
    expect(written[1]).toEqual([
      ['quick', 'ok'],
      ['slow', 'running'],
    ]);
    outcomes.update('slow', { status: 'ok' });
    timers.fireAll();
    expect(written[2]).toEqual([['slow', 'ok']]);
    // The last batch holds nothing back: a node running as the run ends is written so.
    outcomes.queued('late');
    timers.fireAll();
    outcomes.update('late', { status: 'running' });
    const last = await outcomes.takeLast();
    expect(last.map((r) => [r.node, r.status])).toEqual([['late', 'running']]);
    expect(timers.pending()).toBe(0);
  });

  it('writes at once when a batch is full', () => {
    const timers = manualTimers();
    const written: number[] = [];
    const outcomes = new NodeOutcomes({
      runId: 'r' as RunId,
      write: (rows) => written.push(rows.length),
      setTimer: timers.setTimer,
      delayMs: 100,
      maxRows: 4,
    });
    for (let i = 0; i < 10; i++) outcomes.queued(`n${i}`);
    expect(written).toEqual([4, 4]);
    outcomes.flush();
    expect(written).toEqual([4, 4, 2]);
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
