/**
 * The size of a loop's messages to the model worker: one unit first, to
 * measure; then enough units for about the target's work, within the
 * cancel bound, the cap and what is left; following the machine's load.
 */
import { describe, expect, it } from 'vitest';
import { LoopPace } from './loop-pace';

describe('LoopPace', () => {
  it('sends one unit first, then as many as fill the target', () => {
    const pace = new LoopPace({ targetMs: 75, cancelMs: 100 });
    expect(pace.next(1000)).toBe(1);
    pace.record(1, 5);
    expect(pace.next(1000)).toBe(15);
  });

  it('never sends more than is left, nor nothing while units are left', () => {
    const pace = new LoopPace();
    expect(pace.next(0)).toBe(0);
    pace.record(1, 1);
    expect(pace.next(7)).toBe(7);
    pace.record(1, 500); // a unit slower than a whole message's work
    expect(pace.next(7)).toBe(1);
  });

  it('keeps a message within the cancel bound and the cap', () => {
    const fast = new LoopPace({ targetMs: 75, cancelMs: 100, maxUnits: 64 });
    fast.record(1, 0.01);
    expect(fast.next(10_000)).toBe(64);
    // A target past the cancel bound is held to it.
    const bounded = new LoopPace({ targetMs: 300, cancelMs: 100 });
    bounded.record(1, 10);
    expect(bounded.next(10_000)).toBe(30);
  });

  it('shrinks its messages when the machine slows down, and grows them back', () => {
    const pace = new LoopPace({ targetMs: 80 });
    pace.record(1, 4);
    const quiet = pace.next(10_000);
    expect(quiet).toBe(20);
    // Loaded: the same 20 units now take four times as long.
    pace.record(20, 320);
    pace.record(pace.next(10_000), 16 * pace.next(10_000));
    const loaded = pace.next(10_000);
    expect(loaded).toBeLessThan(quiet / 2);
    for (let i = 0; i < 12; i++) pace.record(loaded, 4 * loaded);
    expect(pace.next(10_000)).toBe(quiet);
  });

  it('says what it chose', () => {
    const pace = new LoopPace();
    pace.record(1, 5);
    pace.record(15, 75);
    pace.record(4, 20);
    expect(pace.summary()).toEqual({
      messages: 3,
      minUnits: 1,
      maxUnits: 15,
      meanUnits: 20 / 3,
      meanMs: 100 / 3,
    });
    expect(new LoopPace().summary().messages).toBe(0);
  });
});
