import { describe, expect, it } from 'vitest';
import type { DeviceMemoryPool } from './pool.ts';
import { component, loop } from './program.ts';
import { events, request, setup, trainLoop } from './synthetic-programs.ts';

describe('reservations are released on every exit path', () => {
  const clean = (pool: DeviceMemoryPool) =>
    expect(pool.snapshot()).toMatchObject({ reserved: 0, inUse: 0, holds: [], waiting: [] });

  it('success: reservation and peak held during each unit, none after; end and dispose once', async () => {
    const { runner, pool } = setup(100);
    const e = events();
    const used: number[] = [];
    const report = await runner.run(
      [
        request('r1', [
          trainLoop('r1', e, {
            units: 3,
            resident: 30,
            peak: 20,
            during: () => used.push(pool.used),
          }),
          component({ name: 'after', peakBytes: 5, run: () => void used.push(pool.used) }),
        ]),
      ],
      'serial',
    );
    expect(report.results[0]?.status).toBe('ok');
    expect(report.results[0]?.units).toBe(4);
    expect(report.results[0]?.metrics).toEqual({ loss: [1, 1 / 2, 1 / 3] });
    // The loop's 30 B + 20 B while it runs; only the component's 5 B once it ended.
    expect(used).toEqual([50, 50, 50, 5]);
    expect([e.starts, e.ends, e.disposals]).toEqual([1, 1, 1]);
    clean(pool);
  });

  // In each case r2 waits for the bytes r1 holds: it can only finish if r1's exit gives them back.
  it('error in a unit: the request fails naming step and unit, and its bytes go to the next', async () => {
    const { runner, pool } = setup(100);
    const e = events();
    const report = await runner.run(
      [
        request('r1', [
          trainLoop('r1', e, {
            units: 5,
            resident: 60,
            peak: 20,
            during: (i) => {
              if (i === 2) throw new Error('boom');
            },
          }),
        ]),
        request('r2', [trainLoop('r2', e, { units: 2, resident: 60, peak: 20 })]),
      ],
      'interleaved',
    );
    expect(report.results[0]).toMatchObject({
      status: 'error',
      error: { code: 'step-failed', message: 'train (unit 3 of 5): boom' },
      units: 2,
    });
    expect(report.results[1]?.status).toBe('ok');
    expect(e.log).toEqual(['r1:0', 'r1:1', 'r1:2', 'r2:0', 'r2:1']);
    expect([e.starts, e.ends, e.disposals]).toEqual([2, 1, 2]);
    clean(pool);
  });

  it('error in a loop start: its reservation goes to the next', async () => {
    const { runner, pool } = setup(100);
    const e = events();
    const failing = loop({
      name: 'train',
      units: 3,
      residentBytes: 60,
      start: () => {
        throw new Error('no weights');
      },
    });
    const report = await runner.run(
      [
        request('r1', [failing]),
        request('r2', [trainLoop('r2', e, { units: 1, resident: 60, peak: 0 })]),
      ],
      'interleaved',
    );
    expect(report.results[0]?.error).toEqual({
      code: 'step-failed',
      message: 'train (unit 1 of 3): no weights',
    });
    expect(report.results[1]?.status).toBe('ok');
    clean(pool);
  });

  it('cancel: a loop stops at the next unit, a waiting request is let go, bytes go to the next', async () => {
    const { runner, pool } = setup(100);
    const e = events();
    const cancel1 = new AbortController();
    const cancel3 = new AbortController();
    const report = await runner.run(
      [
        request(
          'r1',
          [
            trainLoop('r1', e, {
              units: 5,
              resident: 60,
              peak: 20,
              during: (i) => {
                if (i === 1) {
                  cancel1.abort();
                  cancel3.abort();
                }
              },
            }),
          ],
          cancel1.signal,
        ),
        request('r2', [trainLoop('r2', e, { units: 2, resident: 60, peak: 20 })]),
        // Waits for 60 B too, and is cancelled while it waits.
        request('r3', [trainLoop('r3', e, { units: 5, resident: 60, peak: 20 })], cancel3.signal),
      ],
      'interleaved',
    );
    expect(report.results.map((r) => r.status)).toEqual(['cancelled', 'ok', 'cancelled']);
    expect(report.results[0]?.error).toEqual({
      code: 'cancelled',
      message: 'cancelled at train (unit 3 of 5)',
    });
    expect(report.results[0]?.units).toBe(2);
    expect(report.results[2]?.units).toBe(0);
    expect(e.log).toEqual(['r1:0', 'r1:1', 'r2:0', 'r2:1']);
    expect([e.starts, e.ends, e.disposals]).toEqual([2, 1, 2]);
    clean(pool);
  });
});
