import { describe, expect, it } from 'vitest';
import { StepRate } from './step-rate';

describe('StepRate', () => {
  it('is unknown until two reports are apart in time, then steps over seconds', () => {
    const rate = new StepRate(2_000);
    expect(rate.report(0, 1_000)).toBeNull();
    expect(rate.report(5, 1_000)).toBeNull();
    expect(rate.report(10, 1_500)).toBe(20);
  });

  it('shows how fast the loop goes now, not since it started', () => {
    const rate = new StepRate(2_000);
    // 10 steps/s for 4 s, then 2 steps/s.
    for (let s = 0; s <= 4; s++) rate.report(s * 10, s * 1_000);
    let now = 0;
    for (let s = 1; s <= 4; s++) now = rate.report(40 + s * 2, 4_000 + s * 1_000) ?? Number.NaN;
    expect(now).toBe(2);
  });

  it('starts again when a loop starts over (fewer steps done than before)', () => {
    const rate = new StepRate(2_000);
    rate.report(0, 0);
    rate.report(100, 1_000);
    expect(rate.report(3, 1_100)).toBeNull();
    expect(rate.report(9, 1_400)).toBeCloseTo(20);
  });
});
