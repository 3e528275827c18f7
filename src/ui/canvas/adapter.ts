/**
 * The one adapter between the flow document and React Flow. The document
 * keeps meaning and position; React Flow's measured sizes, selection and
 * drag state stay on its side and are never written back to the document.
 */
import type { Edge, Node } from '@xyflow/react';
import type { NodeKind } from '../../core/catalog/kind';
import type { FlowDocument } from '../../core/flow/document';
import { parsePortRef } from '../../core/flow/document';
import type { NodeStatus } from '../../core/run/record';
import { builtinCatalog } from '../../core/nodes';

export interface FlowNodeData extends Record<string, unknown> {
  kind: NodeKind | undefined;
  kindName: string;
  label: string;
  /** Switched off in the document: does not run, passes matching inputs on. */
  bypass: boolean;
}

export type CanvasNode = Node<FlowNodeData, 'flow'>;

/**
 * A node's state in the run the canvas shows. Not part of the node React
 * Flow holds: node views read it apart (`node-states.ts`).
 */
export interface NodeRunState {
  status: NodeStatus;
  error: string;
  progress?: { done: number; total: number; perSecond?: number };
  /** How long the node ran, once it finished; null or absent before. */
  durationMs?: number | null;
  /** Latest live value per streaming output port, while the shown run streams. */
  live?: Readonly<Record<string, number>>;
}

export function toCanvasNodes(doc: FlowDocument, previous: readonly CanvasNode[]): CanvasNode[] {
  const before = new Map(previous.map((n) => [n.id, n]));
  return doc.nodes.map((node) => {
    const old = before.get(node.id);
    const data: FlowNodeData = {
      kind: builtinCatalog.get(node.kind),
      kindName: node.kind,
      label: node.label ?? node.id,
      bypass: node.bypass === true,
    };
    // A node being dragged keeps its live position until the drag ends.
    const position = old?.dragging ? old.position : node.position;
    // The same data object when nothing in it changed, so the memoised node
    // view skips its render: dragging one of 1,000 nodes redraws one.
    const kept = old && sameData(old.data, data) ? old.data : data;
    // The same node object when nothing changed at all: React Flow then keeps
    // its internal node too, so a drag does not touch the other 999.
    if (old && old.position === position && old.data === kept) return old;
    // Its name to a screen reader at every zoom: far out its card's title is not in the page.
    const ariaLabel = `${kept.label} (${kept.kind?.title ?? kept.kindName})`;
    return { ...old, id: node.id, type: 'flow', position, data: kept, ariaLabel };
  });
}

function sameData(a: FlowNodeData, b: FlowNodeData): boolean {
  return (Object.keys(b) as (keyof FlowNodeData)[]).every((key) => a[key] === b[key]);
}

export function edgeId(from: string, to: string): string {
  return `${from}->${to}`;
}

/** The document's edges as React Flow draws them (`FlowEdgeView`, which shows a running source). */
export function toCanvasEdges(doc: FlowDocument): Edge[] {
  return doc.edges.map((edge) => {
    const from = parsePortRef(edge.from);
    const to = parsePortRef(edge.to);
    return {
      id: edgeId(edge.from, edge.to),
      type: 'flow',
      source: from.node,
      sourceHandle: from.port,
      target: to.node,
      targetHandle: to.port,
    };
  });
}
