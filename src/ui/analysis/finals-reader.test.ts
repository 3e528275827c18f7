import { describe, expect, it } from 'vitest';
import type { RunId } from '../../core/run/record';
import { FinalsReader, type Finals } from './finals-reader';

const run = (i: number) => `run-${i}` as RunId;
const runs = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => run(from + i));

/** A reader over a clock this test moves, and a store whose reads it settles when it likes. */
function harness(slice = 3) {
  let now = 0;
  const timers: { at: number; fire: () => void }[] = [];
  const reads: { ids: readonly RunId[]; namesOf: RunId; answer: (fail?: boolean) => void }[] = [];
  let changes = 0;
  const reader = new FinalsReader({
    read: (ids, namesOf) =>
      new Promise<Finals>((resolve, reject) => {
        reads.push({
          ids,
          namesOf,
          answer: (fail) =>
            fail
              ? reject(new Error('storage closed'))
              : resolve(new Map(ids.map((id) => [id, { loss: Number(id.slice(4)) }]))),
        });
      }),
    settleMs: 250,
    slice,
    setTimer(fire, ms) {
      const timer = { at: now + ms, fire };
      timers.push(timer);
      return () => timers.splice(timers.indexOf(timer), 1);
    },
    onChange: () => changes++,
  });
  return {
    reader,
    reads,
    changes: () => changes,
    async advance(ms: number) {
      now += ms;
      for (const timer of timers.filter((t) => t.at <= now)) {
        timers.splice(timers.indexOf(timer), 1);
        timer.fire();
      }
      await Promise.resolve();
    },
    async answer(fail?: boolean) {
      reads.shift()!.answer(fail);
      // Let the reader take the answer in.
      for (let i = 0; i < 5; i++) await Promise.resolve();
    },
  };
}

describe('FinalsReader', () => {
  it('reads runs that keep finishing every 50 ms while they do, not once they stop', async () => {
    const h = harness(100);
    const finished: RunId[] = [];
    for (let i = 0; i < 20; i++) {
      finished.push(run(i));
      h.reader.want([...finished], run(0));
      await h.advance(50);
    }
    // A timer put off by each new run would not have fired yet (a second of runs, 50 ms apart).
    expect(h.reads.length).toBe(1);
    expect(h.reads[0]!.ids).toEqual(runs(0, 5));
  });

  it('reads a burst at most `slice` runs at a time, one read at a time, each run once', async () => {
    const h = harness(3);
    h.reader.want(runs(0, 7), run(0));
    await h.advance(250);
    expect(h.reads.map((r) => r.ids)).toEqual([runs(0, 3)]);
    h.reader.want(runs(0, 8), run(0));
    await h.advance(250);
    expect(h.reads.length).toBe(1);
    await h.answer();
    expect(h.reader.shown().get(run(2))).toEqual({ loss: 2 });
    await h.advance(250);
    expect(h.reads.map((r) => r.ids)).toEqual([runs(3, 6)]);
    await h.answer();
    await h.advance(250);
    await h.answer();
    expect([...h.reader.shown().keys()]).toEqual(runs(0, 8));
    await h.advance(1_000);
    expect(h.reads.length).toBe(0);
  });

  it('drops what it read for metric names no longer asked for, and reads the runs again', async () => {
    const h = harness();
    h.reader.want(runs(0, 2), run(0));
    await h.advance(250);
    h.reader.want(runs(0, 2), run(1));
    await h.answer();
    expect(h.reader.shown().size).toBe(0);
    await h.advance(250);
    expect(h.reads.map((r) => [r.namesOf, r.ids])).toEqual([[run(1), runs(0, 2)]]);
  });

  it('after a failed read, waits for the next change rather than retrying in a loop', async () => {
    const h = harness();
    h.reader.want(runs(0, 2), run(0));
    await h.advance(250);
    await h.answer(true);
    await h.advance(1_000);
    expect(h.reads.length).toBe(0);
    h.reader.want(runs(0, 3), run(0));
    await h.advance(250);
    expect(h.reads.map((r) => r.ids)).toEqual([runs(0, 3)]);
  });

  it('tells nothing and reads nothing once closed', async () => {
    const h = harness();
    h.reader.want(runs(0, 2), run(0));
    await h.advance(250);
    h.reader.close();
    const told = h.changes();
    await h.answer();
    await h.advance(1_000);
    expect(h.changes()).toBe(told);
    expect(h.reads.length).toBe(0);
  });
});
