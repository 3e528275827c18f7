import { describe, expect, it } from 'vitest';
import { DeviceMemoryPool } from './pool.ts';
import { ProgramRunner } from './runner.ts';
import { events, memoryLedger, noModels, request, setup, trainLoop } from './synthetic-programs.ts';

describe('admission: what can never fit', () => {
  it('fails at once with the numbers, before any unit runs; the rest of the run goes on', async () => {
    const { runner } = setup(256e6);
    const e = events();
    const report = await runner.run(
      [
        request('big-peak', [trainLoop('big-peak', e, { units: 3, resident: 0, peak: 412e6 })]),
        request('big-state', [
          trainLoop('big-state', e, { units: 3, resident: 100e6, peak: 200e6 }),
        ]),
        request('fits', [trainLoop('fits', e, { units: 2, resident: 100e6, peak: 100e6 })]),
      ],
      'interleaved',
    );
    const [peak, state, fits] = report.results;
    expect(peak?.status).toBe('error');
    expect(peak?.error).toEqual({
      code: 'infeasible',
      message: 'train: step needs 412 MB peak, pool is 256 MB',
    });
    expect(state?.error).toEqual({
      code: 'infeasible',
      message:
        'train: step needs 200 MB peak + 100 MB resident (weights, optimizer state) = 300 MB, pool is 256 MB',
    });
    expect(peak?.units).toBe(0);
    expect(fits?.status).toBe('ok');
    expect(e.log).toEqual(['fits:0', 'fits:1']);
    expect(e.starts).toBe(1);
    expect(report.ticks).toBe(2);
  });

  it('rejects a malformed program at once: a loop without units', async () => {
    const { runner } = setup(100);
    const e = events();
    const [result] = (
      await runner.run(
        [request('r', [trainLoop('r', e, { units: 0, resident: 0, peak: 0 })])],
        'serial',
      )
    ).results;
    expect(result?.error?.code).toBe('invalid-program');
    expect(result?.error?.message).toMatch(/train: a loop needs ≥ 1 unit/);
  });
});

describe('admission: what cannot fit yet', () => {
  it('is deferred, shown as waiting with its reason, retried, and then completes', async () => {
    const { runner, ticks, sleeps, pool } = setup(100);
    const e = events();
    const report = await runner.run(
      ['r1', 'r2'].map((id) =>
        request(id, [trainLoop(id, e, { units: 3, resident: 60, peak: 20 })]),
      ),
      'interleaved',
    );
    expect(report.results.map((r) => r.status)).toEqual(['ok', 'ok']);
    // r2 needs 60 B + 20 B while r1 holds 60 of 100; it ran once r1 let go.
    expect(e.log).toEqual(['r1:0', 'r1:1', 'r1:2', 'r2:0', 'r2:1', 'r2:2']);
    expect(report.ticks).toBe(5);
    const first = ticks[0];
    expect(first?.pool).toMatchObject({ budget: 100, reserved: 60, inUse: 0, free: 40 });
    const why = 'train: needs 60 B weights and optimizer state + 20 B step peak = 80 B';
    expect(first?.pool.waiting).toEqual([{ holder: 'r2', bytes: 80, label: why, holding: 0 }]);
    expect(first?.requests[1]).toMatchObject({
      state: 'waiting',
      waitingFor: { bytes: 80, label: why },
    });
    expect(ticks[2]?.pool.waiting).toEqual([]);
    // Some request progressed every tick, so the runner never slept.
    expect(sleeps).toEqual([]);
    expect(pool.used).toBe(0);
  });

  it('starts a loop only with room for its first step, so two loops defer instead of deadlocking', async () => {
    const { runner, sleeps, pool } = setup(100);
    const e = events();
    // Holding 40 B each, neither could take its 30 B step: r2 must not reserve beside r1.
    const report = await runner.run(
      ['r1', 'r2'].map((id) =>
        request(id, [trainLoop(id, e, { units: 2, resident: 40, peak: 30 })]),
      ),
      'interleaved',
    );
    expect(report.results.map((r) => r.status)).toEqual(['ok', 'ok']);
    expect(e.log).toEqual(['r1:0', 'r1:1', 'r2:0', 'r2:1']);
    expect(sleeps).toEqual([]);
    expect(pool.used).toBe(0);
  });

  it('waits on memory another run holds, without calling it a deadlock while that run moves', async () => {
    const pool = new DeviceMemoryPool(100);
    const other = { name: 'another run' };
    const otherState = pool.tryHold(other, 'state', 40, 'its loop');
    // The other run is inside a long unit: it holds a step's peak, and nothing changes…
    const otherPeak = pool.tryHold(other, 'activation', 10, 'its step');
    let sleeps = 0;
    const runner = new ProgramRunner({
      runtime: noModels,
      pool,
      models: [],
      sleep: () => {
        sleeps++;
        // …for four of our idle ticks; then it steps on, a peak now and then…
        if (sleeps === 4 && otherPeak !== null) pool.release(otherPeak);
        if (sleeps > 4) {
          const peak = pool.tryHold(other, 'activation', 10, 'its step');
          if (peak !== null) pool.release(peak);
        }
        // …and after eight of our idle ticks its loop ends.
        if (sleeps === 8 && otherState !== null) pool.release(otherState);
        return Promise.resolve();
      },
    });
    const e = events();
    const report = await runner.run(
      [request('r1', [trainLoop('r1', e, { units: 2, resident: 60, peak: 10 })])],
      'serial',
    );
    expect(report.results[0]?.status).toBe('ok');
    expect(sleeps).toBe(8);
    expect(e.log).toEqual(['r1:0', 'r1:1']);
  });
});

describe('admission: deadlock', () => {
  it('is detected within a few ticks and fails fast, naming who holds what; no spin', async () => {
    const pool = new DeviceMemoryPool(100);
    const other = { name: 'another run' };
    const sleeps: number[] = [];
    const runner = new ProgramRunner({
      runtime: noModels,
      pool,
      models: [],
      sleep: (ms) => {
        sleeps.push(ms);
        return Promise.resolve();
      },
      // After the first tick another run on the same pool takes 40 B and never moves again.
      onTick: (t) => {
        if (t.tick === 1) pool.tryHold(other, 'state', 40, 'its loop');
      },
    });
    const e = events();
    // r1 then holds 40 B and needs 30 B, with 20 B free; r2 holds nothing and needs 70 B.
    const report = await runner.run(
      [
        request('r1', [trainLoop('r1', e, { units: 5, resident: 40, peak: 30 })]),
        request('r2', [trainLoop('r2', e, { units: 5, resident: 10, peak: 60 })]),
      ],
      'interleaved',
    );
    expect(e.log).toEqual(['r1:0']);
    expect(report.results.map((r) => r.error?.code)).toEqual(['deadlock', 'deadlock']);
    expect(report.results[0]?.error?.message).toBe(
      'deadlock: no request progressed for 3 ticks; ' +
        'r1 holds 40 B (train: weights and optimizer state) and waits (train: needs 30 B step peak); ' +
        'r2 holds nothing and waits (train: needs 10 B weights and optimizer state + 60 B step peak = 70 B); ' +
        'outside this run: another run holds 40 B (its loop). ' +
        'Pool 100 B: 0 B resident models, 80 B reserved, 0 B in use, 20 B free.',
    );
    // Tick 1 moved (r1 stepped); ticks 2–4 did not; the runner slept between them.
    expect(report.ticks).toBe(4);
    expect(sleeps).toEqual([50, 50]);
    expect(e.disposals).toBe(1);
    // All of this run's bytes are back; the other run's are its own.
    expect(pool.allHolds().map((h) => h.holder)).toEqual([other]);
  });
});

describe('admission on a pool shared with other tabs', () => {
  it("books a loop's state and one step's peak once, when it starts; its units book nothing", async () => {
    const ledger = memoryLedger();
    const pool = new DeviceMemoryPool(100, ledger);
    const inUse: number[] = [];
    const runner = new ProgramRunner({
      runtime: noModels,
      pool,
      models: [],
      sleep: () => Promise.resolve(),
      onTick: (t) => inUse.push(t.pool.reserved),
    });
    const e = events();
    const report = await runner.run(
      [
        request('r', [
          trainLoop('r', e, {
            units: 5,
            resident: 60,
            peak: 20,
            during: () => inUse.push(pool.bytesOf('activation')),
          }),
        ]),
      ],
      'serial',
    );
    expect(report.results[0]?.status).toBe('ok');
    expect(ledger.asked).toEqual(['book r state 80', 'release 1']);
    // Each unit ran with its 20 B peak drawn from the loop's 80 B; between units all 80 B
    // are reserved, until the loop ends.
    expect(inUse).toEqual([20, 80, 20, 80, 20, 80, 20, 80, 20, 0]);
    expect(ledger.booked.size).toBe(0);
    expect(pool.used).toBe(0);
  });

  it('waits, saying so, while other tabs that move hold the bytes; fails at once what could never fit', async () => {
    const other = {
      engine: 'other tab',
      kind: 'state' as const,
      bytes: 50,
      holder: 'train',
      label: 'train: weights',
      run: 'r1',
      node: 'train',
    };
    const ledger = memoryLedger([other]);
    ledger.active = true;
    const pool = new DeviceMemoryPool(100, ledger);
    let sleeps = 0;
    const waits: string[] = [];
    const runner = new ProgramRunner({
      runtime: noModels,
      pool,
      models: [],
      onTick: (t) => waits.push(...t.pool.waiting.map((w) => w.label)),
      sleep: () => {
        // The other tab ends its loop after a few of our idle ticks.
        if (++sleeps === 5) ledger.others.splice(0);
        return Promise.resolve();
      },
    });
    const e = events();
    const report = await runner.run(
      [request('r', [trainLoop('r', e, { units: 2, resident: 40, peak: 20 })])],
      'serial',
    );
    // Not a deadlock: the other tab's bytes are not this run's to free.
    expect(report.results[0]?.status).toBe('ok');
    expect(sleeps).toBe(5);
    expect(waits[0]).toBe(
      'train: needs 40 B weights and optimizer state + 20 B step peak = 60 B; other tabs hold 50 B',
    );
    expect(pool.snapshot().others).toBe(0);
    const [never] = (
      await runner.run(
        [request('big', [trainLoop('big', e, { units: 2, resident: 90, peak: 20 })])],
        'serial',
      )
    ).results;
    expect(never?.error?.code).toBe('infeasible');
  });
});
