/**
 * A flow's wiring as a graph, built once per flow: every edge's two ends
 * resolved to vertices (one per node id) and ports, and each vertex's
 * incoming and outgoing edges by index.
 *
 * Validation, cycle search and the executor all walk the same wiring; with
 * this index each of them pays for a node's own edges, never for a scan of
 * every edge of the flow per node, and an edge's `nodeId.port` strings are
 * split once, not once per walker. Trade-off: the graph is a snapshot — an
 * edited flow needs a new one (building it costs one pass over the edges).
 */
import type { FlowDocument, FlowEdge } from './document';

/** One edge of the flow, split and resolved to the graph's vertices. */
export interface GraphWire {
  readonly edge: FlowEdge;
  /** The edge's index in `flow.edges` (its document path is `edges[index]`). */
  readonly index: number;
  /** Vertex of the node the edge leaves, and the output port it leaves by. */
  readonly source: number;
  readonly fromPort: string;
  /** Vertex of the node the edge enters, and the input port it enters by. */
  readonly target: number;
  readonly toPort: string;
}

/**
 * The edges at each vertex, all in one array: those of vertex `v` are
 * `wires[start[v]]` up to (not including) `wires[start[v + 1]]`, in document
 * order. Two typed arrays instead of an array per node, because a flow of
 * thousands of nodes would otherwise keep thousands of small arrays alive
 * for the garbage collector to walk while the run goes on.
 */
export interface Adjacency {
  readonly start: Int32Array;
  /** Indexes into the graph's `wires`. */
  readonly wires: Int32Array;
}

export interface FlowGraph {
  /**
   * Every distinct node id, one vertex each: first the flow's nodes in
   * document order (the first of duplicate ids), then ids that only edges
   * name (a dangling edge still has two ends, so a cycle through it is found).
   */
  readonly ids: readonly string[];
  /** The vertex of each node id. */
  readonly vertex: ReadonlyMap<string, number>;
  /** Where each vertex's node is in `flow.nodes`; -1 for an id only edges name. */
  readonly nodeAt: readonly number[];
  /** The vertex of each of `flow.nodes` (duplicates of an id share the first one's). */
  readonly nodeVertex: Int32Array;
  readonly wires: readonly GraphWire[];
  /** The edges entering each vertex. */
  readonly incoming: Adjacency;
  /** The edges leaving each vertex. */
  readonly outgoing: Adjacency;
}

/** How many edges `adjacency` holds at vertex `v`. */
export function degree(adjacency: Adjacency, v: number): number {
  return adjacency.start[v + 1]! - adjacency.start[v]!;
}

/** The graph of `flow`'s wiring: one pass over its nodes, three over its edges. */
export function flowGraph(flow: Pick<FlowDocument, 'nodes' | 'edges'>): FlowGraph {
  const ids: string[] = [];
  const vertex = new Map<string, number>();
  const nodeAt: number[] = [];
  const addVertex = (id: string, at: number): number => {
    vertex.set(id, ids.length);
    nodeAt.push(at);
    return ids.push(id) - 1;
  };
  const nodeVertex = new Int32Array(flow.nodes.length);
  for (let i = 0; i < flow.nodes.length; i++) {
    const id = flow.nodes[i]!.id;
    nodeVertex[i] = vertex.get(id) ?? addVertex(id, i);
  }
  // One string per port name, not one per edge end: the graph lives as long as its run.
  const portNames = new Map<string, string>();
  const portName = (name: string): string => {
    const known = portNames.get(name);
    if (known !== undefined) return known;
    portNames.set(name, name);
    return name;
  };
  const wires: GraphWire[] = [];
  const sources = new Int32Array(flow.edges.length);
  const targets = new Int32Array(flow.edges.length);
  for (let index = 0; index < flow.edges.length; index++) {
    const edge = flow.edges[index]!;
    // Split as `parsePortRef` does, without an object per end.
    const from = edge.from.indexOf('.');
    const to = edge.to.indexOf('.');
    const fromNode = edge.from.slice(0, from);
    const toNode = edge.to.slice(0, to);
    const source = vertex.get(fromNode) ?? addVertex(fromNode, -1);
    const target = vertex.get(toNode) ?? addVertex(toNode, -1);
    sources[index] = source;
    targets[index] = target;
    wires.push({
      edge,
      index,
      source,
      fromPort: portName(edge.from.slice(from + 1)),
      target,
      toPort: portName(edge.to.slice(to + 1)),
    });
  }
  return {
    ids,
    vertex,
    nodeAt,
    nodeVertex,
    wires,
    incoming: adjacency(ids.length, targets),
    outgoing: adjacency(ids.length, sources),
  };
}

/** Edges grouped by the vertex at one end (`ends[w]` for edge `w`): a counting sort, so stable. */
function adjacency(vertices: number, ends: Int32Array): Adjacency {
  const start = new Int32Array(vertices + 1);
  for (const v of ends) start[v + 1]!++;
  for (let v = 0; v < vertices; v++) start[v + 1]! += start[v]!;
  const placed = start.slice(0, vertices);
  const wires = new Int32Array(ends.length);
  ends.forEach((v, w) => (wires[placed[v]!++] = w));
  return { start, wires };
}

/**
 * A cycle as a list of node ids (first repeated at the end), or null. The
 * search starts at each node in document order and follows edges in document
 * order, so the cycle it names is the same on every call. Iterative, so a
 * chain of any length cannot overflow the stack.
 */
export function cycleIn(graph: FlowGraph): string[] | null {
  const open = 1;
  const done = 2;
  const state = new Uint8Array(graph.ids.length);
  // The path being walked, and for each step of it the next of its outgoing edges to follow.
  const path: number[] = [];
  const next: number[] = [];
  // Searches start at the flow's nodes only; an id only edges name is reached through them.
  for (let start = 0; start < graph.ids.length && graph.nodeAt[start]! >= 0; start++) {
    if (state[start] !== 0) continue;
    state[start] = open;
    path.push(start);
    next.push(graph.outgoing.start[start]!);
    while (path.length > 0) {
      const top = path.length - 1;
      const v = path[top]!;
      const k = next[top]!;
      if (k === graph.outgoing.start[v + 1]) {
        state[v] = done;
        path.pop();
        next.pop();
        continue;
      }
      next[top] = k + 1;
      const to = graph.wires[graph.outgoing.wires[k]!]!.target;
      if (state[to] === open) {
        const ids = path.slice(path.indexOf(to)).map((u) => graph.ids[u]!);
        return [...ids, graph.ids[to]!];
      }
      if (state[to] === 0) {
        state[to] = open;
        path.push(to);
        next.push(graph.outgoing.start[to]!);
      }
    }
  }
  return null;
}
