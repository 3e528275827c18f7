import { describe, expect, it } from 'vitest';
import { FLOW_FORMAT, type FlowDocument } from '../../core/flow/document';
import { toCanvasNodes, type CanvasNode } from './adapter';

const doc: FlowDocument = {
  format: FLOW_FORMAT,
  name: 'f',
  inputs: [],
  outputs: [],
  nodes: [
    { id: 'a', kind: 'data.synthetic', params: {}, position: { x: 0, y: 0 } },
    { id: 'b', kind: 'data.split', params: {}, position: { x: 300, y: 0 } },
  ],
  edges: [],
};

/** What React Flow hands back after measuring: the same nodes with their sizes. */
function measured(nodes: CanvasNode[]): CanvasNode[] {
  return nodes.map((n) => ({ ...n, measured: { width: 200, height: 90 } }));
}

describe('toCanvasNodes', () => {
  it('hands React Flow the very node objects it drew when nothing changed', () => {
    // React Flow keeps its internal node (and skips the node's view) only for an identical object.
    const drawn = measured(toCanvasNodes(doc, []));
    const again = toCanvasNodes(doc, drawn);
    expect(again[0]).toBe(drawn[0]);
    expect(again[1]).toBe(drawn[1]);
  });

  it('makes a new object only for the node whose document entry changed, keeping what React Flow measured', () => {
    const drawn = measured(toCanvasNodes(doc, []));
    const renamed: FlowDocument = {
      ...doc,
      nodes: doc.nodes.map((n) => (n.id === 'b' ? { ...n, label: 'held out' } : n)),
    };
    const next = toCanvasNodes(renamed, drawn);
    expect(next[0]).toBe(drawn[0]);
    expect(next[1]).not.toBe(drawn[1]);
    expect(next[1]?.data.label).toBe('held out');
    // Its name follows its label (far out, where its title is not drawn by the page, too).
    expect(next[1]?.ariaLabel).toBe('held out (Train/test split)');
    expect(next[0]?.ariaLabel).toBe('a (Synthetic data)');
    expect(next[1]?.measured).toEqual({ width: 200, height: 90 });
  });

  it('moves a node to its document position, but not while it is being dragged', () => {
    const drawn = measured(toCanvasNodes(doc, []));
    const moved: FlowDocument = {
      ...doc,
      nodes: doc.nodes.map((n) => (n.id === 'a' ? { ...n, position: { x: 50, y: 60 } } : n)),
    };
    expect(toCanvasNodes(moved, drawn)[0]?.position).toEqual({ x: 50, y: 60 });
    const dragging = drawn.map((n) =>
      n.id === 'a' ? { ...n, dragging: true, position: { x: 7, y: 8 } } : n,
    );
    expect(toCanvasNodes(moved, dragging)[0]?.position).toEqual({ x: 7, y: 8 });
  });
});
