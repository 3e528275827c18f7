import { expect, it } from 'vitest';
import { degree, flowGraph, type Adjacency, type FlowGraph } from './graph';

const at = { x: 0, y: 0 };

/** The edge indexes `adjacency` holds at the vertex of node `id`. */
function edgesAt(graph: FlowGraph, adjacency: Adjacency, id: string): number[] {
  const v = graph.vertex.get(id)!;
  return [...adjacency.wires.subarray(adjacency.start[v], adjacency.start[v + 1])];
}

it("lists each node's incoming and outgoing edges in document order, and gives an id only edges name a vertex of its own", () => {
  const graph = flowGraph({
    nodes: [
      { id: 'a', kind: 'k', params: {}, position: at },
      { id: 'b', kind: 'k', params: {}, position: at },
      { id: 'a', kind: 'k', params: {}, position: at },
    ],
    edges: [
      { from: 'a.out', to: 'b.y' },
      { from: 'ghost.out', to: 'b.x' },
      { from: 'a.out', to: 'b.x' },
    ],
  });
  expect(graph.ids).toEqual(['a', 'b', 'ghost']);
  expect(graph.nodeAt).toEqual([0, 1, -1]);
  expect([...graph.nodeVertex]).toEqual([0, 1, 0]);
  expect(edgesAt(graph, graph.incoming, 'b')).toEqual([0, 1, 2]);
  expect(edgesAt(graph, graph.outgoing, 'a')).toEqual([0, 2]);
  expect(degree(graph.incoming, graph.vertex.get('a')!)).toBe(0);
  expect(graph.wires[1]).toMatchObject({ source: 2, fromPort: 'out', target: 1, toPort: 'x' });
});
