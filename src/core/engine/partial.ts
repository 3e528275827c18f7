/**
 * Partial runs. `Run to here` runs only what one node needs: the node and
 * every node above it; the rest of the flow is skipped with a reason that
 * says so (with the cache on, what is above and unchanged is a hit, so it
 * costs only what changed). `Run from here` is the cache's `fresh` set
 * (`run-cache.ts`): the node and what is below it recompute.
 */
import type { FlowGraph } from '../flow/graph';

/** The vertices `Run to here` on `node` runs: it and everything above it. */
export function neededFor(graph: FlowGraph, node: string): Set<number> {
  const from = graph.vertex.get(node);
  const needed = new Set<number>();
  if (from === undefined) return needed;
  const { start, wires } = graph.incoming;
  const pending = [from];
  for (let v = pending.pop(); v !== undefined; v = pending.pop()) {
    if (needed.has(v)) continue;
    needed.add(v);
    for (let k = start[v]!; k < start[v + 1]!; k++) pending.push(graph.wires[wires[k]!]!.source);
  }
  return needed;
}

/** Why a node `Run to here` did not need was not run. */
export function notNeeded(target: string): string {
  return `skipped: not needed to run to '${target}'`;
}
