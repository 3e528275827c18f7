import { describe, expect, it } from 'vitest';
import type { NodeRunState } from './adapter';
import { stepStates } from './stepped-states';

const states = (entries: [string, NodeRunState['status']][]) =>
  new Map(entries.map(([node, status]) => [node, { status, error: '' }]));

describe('the node states the canvas draws', () => {
  it('are the newest at once when few nodes changed', () => {
    const shown = states([
      ['a', 'queued'],
      ['b', 'queued'],
    ]);
    const target = states([
      ['a', 'running'],
      ['b', 'queued'],
    ]);
    expect(stepStates(shown, target, 1)).toBe(target);
  });

  it('reach a burst of changes a bounded number of nodes at a time, and then are the newest', () => {
    const nodes = Array.from({ length: 10 }, (_, i) => `n${i}`);
    const shown = states(nodes.map((n) => [n, 'queued']));
    const target = states(nodes.map((n) => [n, 'ok']));
    const first = stepStates(shown, target, 4);
    expect([...first.values()].filter((s) => s.status === 'ok')).toHaveLength(4);
    const second = stepStates(first, target, 4);
    expect([...second.values()].filter((s) => s.status === 'ok')).toHaveLength(8);
    expect(stepStates(second, target, 4)).toBe(target);
    // A node the newest states no longer hold goes too.
    const fewer = states(nodes.slice(1).map((n) => [n, 'ok']));
    expect(stepStates(target, fewer, 4)).toBe(fewer);
  });
});
