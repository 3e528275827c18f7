import { describe, expect, it, vi } from 'vitest';
import { MetricBatcher, metricBatchDefaults, type MetricBatcherOptions } from './metric-batcher';
import type { MetricRow, RunId } from './record';

const runId = 'run-1' as RunId;

/** A batcher with a fake clock and fake timers; nothing waits on real time. */
function setup(overrides: Partial<MetricBatcherOptions> = {}) {
  const written: MetricRow[][] = [];
  const timers: { fire: () => void; ms: number; cancelled: boolean }[] = [];
  const errors: unknown[] = [];
  let clock = 1_000_000;
  const batcher = new MetricBatcher({
    runId,
    write: (rows) => {
      written.push(rows);
      return Promise.resolve();
    },
    now: () => (clock += 1000),
    setTimer: (fire, ms) => {
      const timer = { fire, ms, cancelled: false };
      timers.push(timer);
      return () => {
        timer.cancelled = true;
      };
    },
    onError: (error) => errors.push(error),
    ...overrides,
  });
  const pending = () => timers.filter((t) => !t.cancelled);
  return { batcher, written, timers, pending, errors };
}

/** Let queued promise callbacks (the write chain) run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('MetricBatcher', () => {
  it('counts steps per metric from 0', () => {
    const { batcher } = setup();
    const steps = [
      batcher.push('train.loss', 1),
      batcher.push('eval.acc', 0.5),
      batcher.push('train.loss', 0.9),
      batcher.push('train.loss', 0.8),
      batcher.push('eval.acc', 0.6),
    ].map((row) => [row.name, row.step]);
    expect(steps).toEqual([
      ['train.loss', 0],
      ['eval.acc', 0],
      ['train.loss', 1],
      ['train.loss', 2],
      ['eval.acc', 1],
    ]);
    expect(Object.fromEntries(batcher.counts())).toEqual({ 'train.loss': 3, 'eval.acc': 2 });
  });

  it('stamps each point with the run id and the time in epoch seconds', () => {
    const { batcher } = setup();
    expect(batcher.push('train.loss', Number.NaN)).toEqual({
      runId,
      name: 'train.loss',
      step: 0,
      value: Number.NaN,
      ts: 1001,
    });
  });

  it('writes a batch as soon as it holds maxPoints points', async () => {
    const { batcher, written } = setup({ maxPoints: 3 });
    batcher.push('m', 1);
    batcher.push('m', 2);
    await settle();
    expect(written).toEqual([]);
    batcher.push('m', 3);
    await settle();
    expect(written.map((b) => b.map((r) => r.step))).toEqual([[0, 1, 2]]);
  });

  it('writes what is buffered when the timer fires', async () => {
    const { batcher, written, pending } = setup({ maxPoints: 100, maxDelayMs: 2000 });
    batcher.push('m', 1);
    batcher.push('m', 2);
    expect(pending()).toHaveLength(1);
    expect(pending()[0]!.ms).toBe(2000);
    await settle();
    expect(written).toEqual([]);
    pending()[0]!.fire();
    await settle();
    expect(written.map((b) => b.map((r) => r.value))).toEqual([[1, 2]]);
  });

  it('arms one timer per batch and cancels it when the batch is written by size', async () => {
    const { batcher, timers, pending } = setup({ maxPoints: 2 });
    batcher.push('m', 1);
    expect(timers).toHaveLength(1);
    batcher.push('m', 2);
    expect(pending()).toHaveLength(0);
    await settle();
    batcher.push('m', 3);
    expect(pending()).toHaveLength(1);
  });

  it('writes batches in order, one after another', async () => {
    const order: number[][] = [];
    const releases: (() => void)[] = [];
    let active = 0;
    let overlapped = false;
    const { batcher } = setup({
      maxPoints: 2,
      write: async (rows) => {
        active++;
        if (active > 1) overlapped = true;
        await new Promise<void>((resolve) => releases.push(resolve));
        order.push(rows.map((r) => r.step));
        active--;
      },
    });
    for (let i = 0; i < 6; i++) batcher.push('m', i);
    const done = batcher.flush();
    // Release writes in reverse order of request, as soon as each is waiting.
    while (order.length < 3) {
      await settle();
      releases
        .splice(0)
        .reverse()
        .forEach((release) => release());
    }
    await done;
    expect(overlapped).toBe(false);
    expect(order).toEqual([
      [0, 1],
      [2, 3],
      [4, 5],
    ]);
  });

  it('on a failed write calls onError, rejects flush and drops later points', async () => {
    const failure = new Error('QuotaExceededError');
    const write = vi.fn<(rows: MetricRow[]) => Promise<void>>(() => Promise.reject(failure));
    const { batcher, errors } = setup({ write });
    batcher.push('m', 1);
    await expect(batcher.flush()).rejects.toBe(failure);
    expect(errors).toEqual([failure]);
    batcher.push('m', 2);
    await expect(batcher.flush()).rejects.toBe(failure);
    expect(write).toHaveBeenCalledTimes(1);
    expect(errors).toHaveLength(1);
  });

  it('reports a failure of a size-triggered write through onError and the next flush', async () => {
    const failure = new Error('disk full');
    const { batcher, errors } = setup({ maxPoints: 1, write: () => Promise.reject(failure) });
    batcher.push('m', 1);
    await settle();
    expect(errors).toEqual([failure]);
    await expect(batcher.flush()).rejects.toBe(failure);
  });

  it('with the defaults, writes a burst in transactions of at most maxPoints, each point once', async () => {
    const { batcher, written } = setup();
    const names = ['train.loss', 'train.accuracy', 'eval.loss'];
    const points = 10 * metricBatchDefaults.maxPoints + 7;
    for (let i = 0; i < points; i++) batcher.push(names[i % names.length]!, i);
    await batcher.flush();
    expect(Math.max(...written.map((batch) => batch.length))).toBe(metricBatchDefaults.maxPoints);
    const stored = written.flat().map((row) => `${row.name}#${row.step}`);
    expect(stored).toHaveLength(points);
    expect(new Set(stored).size).toBe(points);
  });

  it('writes nothing when flushed with nothing buffered', async () => {
    const { batcher, written } = setup();
    await batcher.flush();
    batcher.push('m', 1);
    await batcher.flush();
    await batcher.flush();
    expect(written).toHaveLength(1);
  });

  it('flush resolves only once earlier batches are written', async () => {
    let release = () => {};
    const written: number[] = [];
    const { batcher } = setup({
      maxPoints: 1,
      write: async (rows) => {
        await new Promise<void>((resolve) => (release = resolve));
        written.push(...rows.map((r) => r.step));
      },
    });
    batcher.push('m', 1); // a size-triggered batch, now in flight
    let flushed = false;
    const done = batcher.flush().then(() => (flushed = true));
    await settle();
    expect(flushed).toBe(false);
    release();
    await done;
    expect(written).toEqual([0]);
  });
});
