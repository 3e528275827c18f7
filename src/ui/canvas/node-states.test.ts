import { describe, expect, it } from 'vitest';
import type { NodeRunState } from './adapter';
import { NodeStates } from './node-states';

describe('NodeStates', () => {
  it('tells its node views of a change, keeping the state object of every node that draws the same', () => {
    const states = new NodeStates();
    let told = 0;
    states.subscribe(() => told++);
    const queued: NodeRunState = { status: 'queued', error: '' };
    states.set(
      new Map([
        ['a', queued],
        ['b', { status: 'queued', error: '' }],
      ]),
    );
    expect(told).toBe(1);
    const b = states.get('b');
    // A new read of the same states: nothing to draw, nobody told.
    states.set(
      new Map([
        ['a', { status: 'queued', error: '', live: {} }],
        ['b', { status: 'queued', error: '' }],
      ]),
    );
    expect(told).toBe(1);
    states.set(
      new Map([
        ['a', { status: 'running', error: '' }],
        ['b', { status: 'queued', error: '' }],
      ]),
    );
    expect(told).toBe(2);
    expect(states.get('a')?.status).toBe('running');
    expect(states.get('b')).toBe(b);
    // A node the run no longer has is idle again.
    states.set(new Map([['b', { status: 'ok', error: '' }]]));
    expect(states.get('a')).toBeUndefined();
  });
});
