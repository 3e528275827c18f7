/**
 * Copy and paste of canvas selections. A copy keeps the selected nodes and
 * the edges between them; a paste gives every node a fresh id (so it can go
 * into the same flow or another), rewires the copied edges to the new ids and
 * offsets positions so the copy does not hide the original.
 */
import type { FlowDocument, FlowEdge, FlowNode } from '../../core/flow/document';
import { parsePortRef } from '../../core/flow/document';

export const CLIPBOARD_FORMAT = 'flowbench.clipboard/1';

export interface ClipboardPayload {
  format: typeof CLIPBOARD_FORMAT;
  nodes: FlowNode[];
  edges: FlowEdge[];
}

export function copySelection(doc: FlowDocument, ids: ReadonlySet<string>): ClipboardPayload {
  return {
    format: CLIPBOARD_FORMAT,
    nodes: doc.nodes.filter((n) => ids.has(n.id)),
    edges: doc.edges.filter(
      (e) => ids.has(parsePortRef(e.from).node) && ids.has(parsePortRef(e.to).node),
    ),
  };
}

/** Read a payload back from clipboard text; null when it is not one. */
export function parseClipboard(text: string): ClipboardPayload | null {
  try {
    const value = JSON.parse(text) as Partial<ClipboardPayload>;
    return value.format === CLIPBOARD_FORMAT &&
      Array.isArray(value.nodes) &&
      Array.isArray(value.edges)
      ? (value as ClipboardPayload)
      : null;
  } catch {
    return null;
  }
}

/** A node id not yet used in `taken`, from a base name: `train`, `train2`, … */
export function freshId(base: string, taken: ReadonlySet<string>): string {
  const stem = base.replace(/\d+$/, '') || 'node';
  if (!taken.has(base)) return base;
  let i = 2;
  while (taken.has(`${stem}${i}`)) i++;
  return `${stem}${i}`;
}

/** The nodes and edges a paste adds to `doc`, with fresh ids. */
export function pasteInto(
  doc: FlowDocument,
  payload: ClipboardPayload,
  offset: { x: number; y: number },
): { nodes: FlowNode[]; edges: FlowEdge[] } {
  const taken = new Set(doc.nodes.map((n) => n.id));
  const rename = new Map<string, string>();
  const nodes = payload.nodes.map((node) => {
    const id = freshId(node.id, taken);
    taken.add(id);
    rename.set(node.id, id);
    return {
      ...structuredClone(node),
      id,
      position: { x: node.position.x + offset.x, y: node.position.y + offset.y },
    };
  });
  const remap = (ref: string) => {
    const { node, port } = parsePortRef(ref);
    return `${rename.get(node) ?? node}.${port}`;
  };
  const edges = payload.edges.map((e) => ({ from: remap(e.from), to: remap(e.to) }));
  return { nodes, edges };
}
