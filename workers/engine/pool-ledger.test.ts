/**
 * One budget for two tabs: two engines, each with its own pool and runner,
 * over one IndexedDB (two connections to one fake-indexeddb database, as two
 * tabs open it). Leases run on a hand-driven clock; liveness (who holds its
 * Web Lock) is a set the test edits.
 */
import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  component,
  DeviceMemoryPool,
  loop,
  modelId,
  ProgramRunner,
  requestId,
  type LoopStep,
  type TickReport,
} from '../../src/core/programs';
import type { TensorRuntime } from '../../src/core/runtime/tensor-runtime';
import { liveBookings } from '../../src/db/pool-bookings';
import { FlowbenchDb } from '../../src/db/schema';
import { SharedBudget } from './pool-ledger';

/** A clock and timers the test moves by hand. */
function handClock() {
  let now = 1_000_000;
  let timers: { at: number; fire: () => void }[] = [];
  return {
    now: () => now,
    setTimer: (fire: () => void, ms: number) => {
      const timer = { at: now + ms, fire };
      timers.push(timer);
      return () => {
        timers = timers.filter((t) => t !== timer);
      };
    },
    advance: (ms: number) => {
      now += ms;
      const due = timers.filter((t) => t.at <= now);
      timers = timers.filter((t) => t.at > now);
      for (const t of due) t.fire();
    },
  };
}

const turn = () => new Promise<void>((resolve) => setTimeout(resolve, 1));

let n = 0;
const opened: { db: FlowbenchDb; budget: SharedBudget }[] = [];
afterEach(async () => {
  for (const { db, budget } of opened.splice(0)) {
    budget.stop();
    db.close();
  }
  await new FlowbenchDb(`pool-ledger-${n}`).delete();
});

/** Tabs of one browser: each its own database connection and engine; `live` holds their locks. */
function browser() {
  const name = `pool-ledger-${++n}`;
  const clock = handClock();
  const live = new Set<string>();
  const tabs: SharedBudget[] = [];
  const open = (engine: string, leaseMs = 1_000, quietMs = 5_000) => {
    const db = new FlowbenchDb(name);
    const budget = new SharedBudget({
      db,
      engine,
      now: clock.now,
      liveEngines: () => Promise.resolve(new Set(live)),
      setTimer: clock.setTimer,
      leaseMs,
      quietMs,
      // The broadcast: every other tab reads the bookings again.
      announce: () => {
        for (const other of tabs) if (other !== budget) void other.renew();
      },
    });
    live.add(engine);
    tabs.push(budget);
    opened.push({ db, budget });
    return {
      db,
      budget,
      pool: (bytes: number) => new DeviceMemoryPool(bytes, budget.ledger('wasm')),
    };
  };
  const booked = async (db: FlowbenchDb) =>
    (await liveBookings(db, { now: clock.now(), live })).reduce((sum, b) => sum + b.bytes, 0);
  return { clock, live, open, booked };
}

/** A loop of `units` whose units take a few milliseconds each, logging `<id>:<unit>`. */
function slowLoop(
  id: string,
  log: string[],
  units: number,
  resident: number,
  peak: number,
): LoopStep {
  return loop({
    name: 'train',
    units,
    residentBytes: resident,
    peakBytes: peak,
    start: () => ({
      unit: async (i) => {
        log.push(`${id}:${i}`);
        await new Promise((resolve) => setTimeout(resolve, 3));
      },
    }),
  });
}

const noModels: TensorRuntime = {
  info: { backend: 'wasm', adapter: null },
  createSession: () => Promise.reject(new Error('these programs load no model')),
};

describe('one budget for the engines of two tabs', () => {
  it("never admits both: the second tab's loop waits for the first's bookings, then runs", async () => {
    const { open, booked } = browser();
    const a = open('A');
    const b = open('B');
    const log: string[] = [];
    const ticksOfB: TickReport[] = [];
    const runner = (pool: DeviceMemoryPool, run: string, onTick?: (t: TickReport) => void) =>
      new ProgramRunner({
        runtime: noModels,
        pool,
        models: [],
        sleep: turn,
        origin: { run, node: 'train' },
        ...(onTick && { onTick }),
      });
    // Each loop books 60 B of weights and state and its 20 B step peak: 80 of 100 B.
    const first = runner(a.pool(100), 'run-a');
    const second = runner(b.pool(100), 'run-b', (t) => ticksOfB.push(t));
    let started!: () => void;
    const aStarted = new Promise<void>((resolve) => (started = resolve));
    const aLoop = slowLoop('a', log, 6, 60, 20);
    const running = first.run(
      [
        {
          id: requestId('a'),
          program: {
            steps: [{ ...aLoop, start: (ctx) => (started(), aLoop.start(ctx)) }],
          },
        },
      ],
      'serial',
    );
    await aStarted;
    // While both run, what is booked across the tabs never exceeds the budget.
    let most = 0;
    let done = false;
    const watching = (async () => {
      while (!done) {
        most = Math.max(most, await booked(a.db));
        await turn();
      }
    })();
    const [reportA, reportB] = await Promise.all([
      running,
      second.run(
        [{ id: requestId('b'), program: { steps: [slowLoop('b', log, 3, 60, 20)] } }],
        'serial',
      ),
    ]);
    done = true;
    await watching;

    expect([reportA.results[0]?.status, reportB.results[0]?.status]).toEqual(['ok', 'ok']);
    expect(log).toEqual(['a:0', 'a:1', 'a:2', 'a:3', 'a:4', 'a:5', 'b:0', 'b:1', 'b:2']);
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(100);
    // The second tab said what it waited for, and whose bookings stood in its way.
    const waiting = ticksOfB.find((t) => t.requests[0]?.state === 'waiting')!;
    expect(waiting.pool.waiting[0]?.label).toBe(
      'train: needs 60 B weights and optimizer state + 20 B step peak = 80 B; other tabs hold 80 B',
    );
    expect(waiting.pool.others).toBe(80);
    expect(waiting.pool.otherBookings).toMatchObject([
      {
        engine: 'A',
        holder: 'a',
        kind: 'state',
        bytes: 80,
        label: "train: weights, optimizer state and a step's peak",
        run: 'run-a',
        node: 'train',
      },
    ]);
    // Every booking was given back.
    await turn();
    expect(await booked(a.db)).toBe(0);
  });

  it("counts a dead tab's bookings only until their lease runs out, and a live one's past it", async () => {
    const { clock, live, open, booked } = browser();
    const a = open('A').pool(100);
    const dead = open('C');
    const holder = { name: 'r' };
    expect(await dead.pool(100).hold(holder, 'state', 80, 'train')).not.toBeNull();
    // The tab closes: its lock is gone, its lease not yet.
    live.delete('C');
    expect(await a.hold(holder, 'state', 40, 'train')).toBeNull();
    clock.advance(1_001);
    const granted = await a.hold(holder, 'state', 40, 'train');
    expect(granted).not.toBeNull();
    // The dead booking was swept, not just skipped.
    expect(await booked(dead.db)).toBe(40);

    // A tab whose timers starve keeps its lock: its booking counts past its lease.
    const starved = open('D').pool(100);
    expect(await starved.hold(holder, 'state', 50, 'train')).not.toBeNull();
    clock.advance(60_000);
    expect(await a.hold(holder, 'state', 20, 'more')).toBeNull();
    a.release(granted!);
    await turn();
    expect(await booked(dead.db)).toBe(50);
  });

  it('fails requests that wait on each other across tabs once nobody anywhere moves', async () => {
    const { clock, open, booked } = browser();
    const session = {
      backend: 'wasm' as const,
      inputNames: [],
      outputNames: [],
      run: () => Promise.resolve({}),
      release: () => Promise.resolve(),
    };
    const runtime: TensorRuntime = {
      info: { backend: 'wasm', adapter: null },
      createSession: () => Promise.resolve(session),
    };
    const model = modelId('m');
    // Each tab loads a 40 B model, then its loop wants 50 B: 90 of 100 B alone, 130 B together.
    const stuck = async (tab: ReturnType<typeof open>, id: string) => {
      const runner = new ProgramRunner({
        runtime,
        pool: tab.pool(100),
        models: [{ id: model, model: new Uint8Array(1), residentBytes: 40 }],
        // Each idle tick moves the clock on; renewals fire as it passes them.
        sleep: async () => {
          clock.advance(100);
          await turn();
        },
      });
      const train = loop({
        name: 'train',
        units: 2,
        residentBytes: 50,
        start: () => ({ unit: () => undefined }),
      });
      const load = component({ name: 'load', models: [model], run: () => undefined });
      const report = await runner.run(
        [{ id: requestId(id), program: { steps: [load, train] } }],
        'serial',
      );
      await runner.close();
      return report;
    };
    const a = open('A');
    const b = open('B');
    const [ra, rb] = await Promise.all([stuck(a, 'a'), stuck(b, 'b')]);
    for (const result of [ra.results[0], rb.results[0]]) {
      expect(result?.error?.code).toBe('deadlock');
      expect(result?.error?.message).toMatch(/in other tabs: m holds 40 B \(model m\)/);
      expect(result?.error?.message).toMatch(/40 B booked by other tabs/);
    }
    await turn();
    expect(await booked(a.db)).toBe(0);
  });
});
