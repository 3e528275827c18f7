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
  status: NodeStatus;
  error: string;
  progress: { done: number; total: number } | undefined;
  /** Latest live value per streaming output port, while the shown run streams. */
  live: Readonly<Record<string, number>>;
}

export type CanvasNode = Node<FlowNodeData, 'flow'>;

export interface NodeRunState {
  status: NodeStatus;
  error: string;
  progress?: { done: number; total: number };
  live?: Readonly<Record<string, number>>;
}

export function toCanvasNodes(
  doc: FlowDocument,
  runState: ReadonlyMap<string, NodeRunState>,
  previous: readonly CanvasNode[],
): CanvasNode[] {
  const before = new Map(previous.map((n) => [n.id, n]));
  return doc.nodes.map((node) => {
    const old = before.get(node.id);
    const state = runState.get(node.id);
    return {
      ...old,
      id: node.id,
      type: 'flow',
      // A node being dragged keeps its live position until the drag ends.
      position: old?.dragging ? old.position : node.position,
      data: {
        kind: builtinCatalog.get(node.kind),
        kindName: node.kind,
        label: node.label ?? node.id,
        status: state?.status ?? 'idle',
        error: state?.error ?? '',
        progress: state?.progress,
        live: state?.live ?? {},
      },
    };
  });
}

export function edgeId(from: string, to: string): string {
  return `${from}->${to}`;
}

export function toCanvasEdges(
  doc: FlowDocument,
  runState: ReadonlyMap<string, NodeRunState>,
): Edge[] {
  return doc.edges.map((edge) => {
    const from = parsePortRef(edge.from);
    const to = parsePortRef(edge.to);
    return {
      id: edgeId(edge.from, edge.to),
      source: from.node,
      sourceHandle: from.port,
      target: to.node,
      targetHandle: to.port,
      animated: runState.get(from.node)?.status === 'running',
    };
  });
}
