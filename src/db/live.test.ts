/**
 * Pacing a live read's tellings: a lone change shows at once, a burst of
 * changes shows as its last value when the spell ends, and nothing is told
 * after the watch is gone.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Paced } from './live';

describe('Paced', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const paced = () => {
    const told: number[] = [];
    return {
      told,
      pace: new Paced<number>(
        () => 100,
        (value) => told.push(value),
      ),
    };
  };

  it('tells a value given after a quiet spell at once', () => {
    const { told, pace } = paced();
    pace.give(1);
    expect(told).toEqual([1]);
    vi.advanceTimersByTime(150);
    pace.give(2);
    expect(told).toEqual([1, 2]);
  });

  it('tells a burst within the spell once, its last value, when the spell ends', () => {
    const { told, pace } = paced();
    pace.give(1);
    vi.advanceTimersByTime(10);
    for (const value of [2, 3, 4]) pace.give(value);
    expect(told).toEqual([1]);
    vi.advanceTimersByTime(89);
    expect(told).toEqual([1]);
    vi.advanceTimersByTime(1);
    expect(told).toEqual([1, 4]);
    // The telling at the spell's end starts a new spell.
    pace.give(5);
    expect(told).toEqual([1, 4]);
    vi.advanceTimersByTime(100);
    expect(told).toEqual([1, 4, 5]);
  });

  it('waits after each telling the spell of the value told', () => {
    const told: number[] = [];
    // A value's spell is itself, in ms: a long list waits longer than a short one.
    const pace = new Paced<number>(
      (value) => value,
      (value) => told.push(value),
    );
    pace.give(0);
    pace.give(1);
    expect(told).toEqual([0, 1]);
    pace.give(50);
    pace.give(60);
    vi.advanceTimersByTime(1);
    expect(told).toEqual([0, 1, 60]);
    pace.give(70);
    vi.advanceTimersByTime(59);
    expect(told).toEqual([0, 1, 60]);
    vi.advanceTimersByTime(1);
    expect(told).toEqual([0, 1, 60, 70]);
  });

  it('tells nothing more once cancelled', () => {
    const { told, pace } = paced();
    pace.give(1);
    pace.give(2);
    pace.cancel();
    vi.advanceTimersByTime(1_000);
    expect(told).toEqual([1]);
  });
});
