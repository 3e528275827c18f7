/**
 * The selected run's state of each node (status, error, progress, live
 * values), held apart from React Flow's nodes: each node view reads its own
 * node's state from here. Through React Flow, one node's change handed it a
 * new list of every node, which it re-adopted whole and re-checked in every
 * node and edge view; with a thousand nodes a burst of outcomes held the page
 * for a hundred milliseconds and more. Here a change re-renders only the
 * views whose node changed. Trade-off: the run state is not in the nodes
 * React Flow knows (its minimap draws no status).
 */
import { createContext, useContext, useSyncExternalStore } from 'react';
import type { NodeRunState } from './adapter';

type States = ReadonlyMap<string, NodeRunState>;

/** Whether two states of a node draw the same. */
export function sameState(a: NodeRunState | undefined, b: NodeRunState | undefined): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  return (
    a.status === b.status &&
    a.error === b.error &&
    a.progress === b.progress &&
    (a.durationMs ?? null) === (b.durationMs ?? null) &&
    sameValues(a.live ?? {}, b.live ?? {})
  );
}

function sameValues(a: Readonly<Record<string, number>>, b: Readonly<Record<string, number>>) {
  const keys = Object.keys(b);
  return keys.length === Object.keys(a).length && keys.every((key) => Object.is(a[key], b[key]));
}

/** The node states a canvas draws, told to each node view that watches its node. */
export class NodeStates {
  private states: States = new Map();
  private readonly listeners = new Set<() => void>();

  /** The state of `node`: the same object for as long as it draws the same. */
  readonly get = (node: string): NodeRunState | undefined => this.states.get(node);

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** Draw `next`; a node whose state draws as before keeps its state object (its view is not re-rendered). */
  set(next: States): void {
    const kept = new Map<string, NodeRunState>();
    let changed = next.size !== this.states.size;
    for (const [node, state] of next) {
      const held = this.states.get(node);
      if (held && sameState(held, state)) kept.set(node, held);
      else {
        kept.set(node, state);
        changed = true;
      }
    }
    if (!changed) return;
    this.states = kept;
    for (const listener of [...this.listeners]) listener();
  }
}

export const NodeStatesContext = createContext<NodeStates | null>(null);

const none = () => () => undefined;

/**
 * The drawn state of `node` on the canvas around it (undefined: idle, no run
 * shown); `null` watches no node.
 */
export function useNodeState(node: string | null): NodeRunState | undefined {
  const states = useContext(NodeStatesContext);
  const watched = node === null ? null : states;
  return useSyncExternalStore(watched?.subscribe ?? none, () =>
    node === null ? undefined : watched?.get(node),
  );
}
