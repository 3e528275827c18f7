/**
 * The selected run's node states reach the canvas a bounded number of nodes
 * at a time. A batch of node outcomes can change a thousand nodes at once,
 * and React Flow draws a changed node in the same task as the change: a
 * thousand at once held the page for over a hundred milliseconds. So the
 * canvas moves towards the newest states by at most `NODES_PER_FRAME`
 * changed nodes a frame; a small flow, or a change of few nodes, shows at
 * once. The later steps are transitions: the table's status of the run
 * that just ended, or a click, is drawn before the canvas's next step, not
 * behind all of them (a thousand nodes at the end of a run held the table's
 * `ok` back by 200–400 ms). Trade-off: a burst over a thousand nodes takes a
 * few frames to show whole, more when the page has other work.
 */
import { startTransition, useEffect, useMemo, useState } from 'react';
import type { NodeRunState } from './adapter';
import { sameState } from './node-states';

/** Changed nodes drawn per frame. */
export const NODES_PER_FRAME = 150;

type States = ReadonlyMap<string, NodeRunState>;

/**
 * One step from `shown` towards `target`: `target` itself when at most `max`
 * nodes differ, else `shown` with the first `max` differing nodes (in
 * `target`'s order, then the ones it no longer has) brought up to date.
 */
export function stepStates(shown: States, target: States, max: number): States {
  if (shown === target) return target;
  const changed: string[] = [];
  for (const [node, state] of target) if (!sameState(shown.get(node), state)) changed.push(node);
  for (const node of shown.keys()) if (!target.has(node)) changed.push(node);
  if (changed.length <= max) return target;
  const next = new Map(shown);
  for (const node of changed.slice(0, max)) {
    const state = target.get(node);
    if (state) next.set(node, state);
    else next.delete(node);
  }
  return next;
}

/** `target` as the canvas draws it: reached by steps of `NODES_PER_FRAME` changed nodes a frame. */
export function useSteppedStates(target: States): States {
  const [shown, setShown] = useState(target);
  // What differs by few nodes shows now; a burst shows its first step now and the rest frame by frame.
  const next = useMemo(() => stepStates(shown, target, NODES_PER_FRAME), [shown, target]);
  useEffect(() => {
    if (next === shown) return;
    const frame = requestAnimationFrame(() => startTransition(() => setShown(next)));
    return () => cancelAnimationFrame(frame);
  }, [next, shown]);
  return next;
}
