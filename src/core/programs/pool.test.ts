import { describe, expect, it } from 'vitest';
import { DeviceMemoryPool, formatBytes } from './pool.ts';
import { memoryLedger } from './synthetic-programs.ts';

describe('formatBytes', () => {
  it('writes decimal units with three significant digits', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(999)).toBe('999 B');
    expect(formatBytes(4_200)).toBe('4.2 KB');
    expect(formatBytes(412_000_000)).toBe('412 MB');
    expect(formatBytes(256_000_000)).toBe('256 MB');
    expect(formatBytes(1_234_567_890)).toBe('1.23 GB');
  });
});

describe('DeviceMemoryPool', () => {
  it('grants holds that fit, refuses those that do not, and gives bytes back', () => {
    const pool = new DeviceMemoryPool(100);
    const a = { name: 'a' };
    const b = { name: 'b' };
    const state = pool.tryHold(a, 'state', 60, 'train: weights');
    expect(state).not.toBeNull();
    expect(pool.tryHold(b, 'state', 41, 'other')).toBeNull();
    expect(pool.free).toBe(40);
    const peak = pool.tryHold(b, 'activation', 40, 'step');
    expect(pool.free).toBe(0);
    pool.release(peak!);
    pool.release(peak!); // twice is harmless
    expect(pool.free).toBe(40);
    expect(pool.releaseAll(a)).toBe(60);
    expect(pool.used).toBe(0);
  });

  it('snapshots models, reserved, in use, free and who waits for what', () => {
    const pool = new DeviceMemoryPool(1000);
    const model = { name: 'mlp' };
    const r1 = { name: 'r1' };
    const r2 = { name: 'r2' };
    pool.tryHold(model, 'model', 100, 'model mlp');
    pool.tryHold(r1, 'state', 300, 'train: weights and optimizer state');
    pool.tryHold(r1, 'activation', 200, 'train: step peak');
    pool.setWaiting(r2, { bytes: 500, label: 'train: weights and optimizer state' });
    expect(pool.snapshot()).toMatchObject({
      budget: 1000,
      models: 100,
      reserved: 300,
      inUse: 200,
      free: 400,
      residentModels: [{ name: 'mlp', bytes: 100 }],
      waiting: [
        { holder: 'r2', bytes: 500, label: 'train: weights and optimizer state', holding: 0 },
      ],
    });
    pool.releaseAll(r2);
    expect(pool.snapshot().waiting).toEqual([]);
  });

  it('snapshots the pool as it is now, after any hold, release or wait in between', () => {
    const pool = new DeviceMemoryPool(1000);
    const r1 = { name: 'r1' };
    const r2 = { name: 'r2' };
    pool.tryHold(r1, 'state', 300, 'train: weights and optimizer state');
    const before = pool.snapshot();
    // A unit's peak, held and given back: the pool is as it was.
    pool.release(pool.tryHold(r1, 'activation', 200, 'train: step peak')!);
    expect(pool.snapshot()).toEqual(before);
    const peak = pool.tryHold(r1, 'activation', 200, 'train: step peak')!;
    expect(pool.snapshot()).toMatchObject({ reserved: 300, inUse: 200, free: 500 });
    pool.release(peak);
    pool.setWaiting(r2, { bytes: 800, label: 'train: step peak' });
    expect(pool.snapshot()).toMatchObject({ inUse: 0, free: 700, waiting: [{ holder: 'r2' }] });
    pool.clearWaiting(r2);
    expect(pool.snapshot()).toEqual(before);
    // Another hold of the same bytes and label is another hold.
    pool.releaseAll(r1);
    pool.tryHold(r2, 'state', 300, 'train: weights and optimizer state');
    expect(pool.snapshot().holds).toEqual([
      { holder: 'r2', kind: 'state', bytes: 300, label: 'train: weights and optimizer state' },
    ]);
  });

  it('counts every change and wakes those waiting for one', async () => {
    const pool = new DeviceMemoryPool(10);
    const woke: string[] = [];
    const next = pool.nextChange().then(() => woke.push('changed'));
    const v = pool.version;
    expect(pool.tryHold({ name: 'x' }, 'state', 11, 'too big')).toBeNull();
    expect(pool.version).toBe(v); // a refusal is no change
    pool.tryHold({ name: 'x' }, 'state', 5, 'fits');
    await next;
    expect(woke).toEqual(['changed']);
    expect(pool.version).toBe(v + 1);
  });

  it('rejects a budget or a hold that is not a byte count', () => {
    expect(() => new DeviceMemoryPool(-1)).toThrow(/budget/);
    expect(() =>
      new DeviceMemoryPool(10).tryHold({ name: 'x' }, 'state', Number.NaN, 'odd'),
    ).toThrow(/odd: cannot hold NaN bytes/);
  });

  it('shared: books what takes bytes, draws a hold within another from its bytes, counts the others', async () => {
    const other = {
      engine: 'B',
      kind: 'model' as const,
      bytes: 30,
      holder: 'mlp',
      label: 'model mlp',
      run: null,
      node: null,
    };
    const ledger = memoryLedger([other]);
    const pool = new DeviceMemoryPool(100, ledger);
    const r = { name: 'r', run: 'run-1', node: 'train' };
    expect(() => pool.tryHold(r, 'state', 10, 'train')).toThrow(/books bytes with hold/);
    const state = await pool.hold(r, 'state', 60, 'train: state and peak');
    expect(ledger.asked).toEqual(['book r state 60']);
    expect([...ledger.booked.values()][0]).toMatchObject({ run: 'run-1', node: 'train' });
    expect(await pool.hold(r, 'activation', 11, 'eval: peak')).toBeNull();
    expect(pool.free).toBe(10);
    // A unit's peak from its loop's reservation: no booking, no bytes more.
    const peak = pool.tryHold(r, 'activation', 20, 'train: step peak', state!);
    expect(pool.tryHold(r, 'activation', 41, 'too much', state!)).toBeNull();
    expect(pool.snapshot()).toMatchObject({ reserved: 40, inUse: 20, others: 30, free: 10 });
    expect(pool.snapshot().otherBookings).toEqual([other]);
    pool.release(state!);
    // Its units' holds go with it, and so does its booking.
    expect(pool.allHolds()).not.toContain(peak);
    expect(ledger.asked).toEqual(['book r state 60', 'book r activation 11', 'release 1']);
    expect(pool.used).toBe(0);
  });
});
