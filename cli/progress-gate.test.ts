import { describe, expect, it } from 'vitest';
import { progressGate } from './progress-gate';

describe('progressGate', () => {
  it("passes a node's first report, one per interval after it, and always its last", () => {
    let now = 0;
    const gate = progressGate(() => now, 100);
    expect(gate('train', 1, 1000)).toBe(true);
    now = 50;
    expect(gate('train', 2, 1000)).toBe(false);
    // Another node keeps its own interval.
    expect(gate('eval', 1, 10)).toBe(true);
    now = 100;
    expect(gate('train', 3, 1000)).toBe(true);
    now = 120;
    expect(gate('train', 1000, 1000)).toBe(true);
  });
});
