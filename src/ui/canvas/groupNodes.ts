/**
 * Groups on the canvas. A group is drawn as a React Flow node of its own
 * (type `frame`, id `group:<id>`, behind the flow's nodes) whose box is
 * computed from its members' live boxes on every render, so the frame
 * follows a member while it is dragged. Dragging the frame is turned into a
 * drag of its members by the same delta; the frame itself is never written
 * to the document. Members keep absolute positions (not React Flow's
 * parent-relative sub-flow positions), so the document and the adapter stay
 * as they are and a node can leave a group without moving.
 */
import type { Node, NodeChange } from '@xyflow/react';
import type { FlowDocument } from '../../core/flow/document';
import { frameOf } from '../../core/flow/groups';
import type { CanvasNode } from './adapter';
import type { LayoutBox } from '../../core/flow/layout';

export interface GroupNodeData extends Record<string, unknown> {
  group: string;
  title: string;
  color: string | undefined;
  members: readonly string[];
}

export type GroupCanvasNode = Node<GroupNodeData, 'frame'>;

const PREFIX = 'group:';

/** The canvas id of group `group`: it cannot clash with a node id, which has no `:`. */
export function groupNodeId(group: string): string {
  return `${PREFIX}${group}`;
}

/** The group id behind a canvas id, or null for a flow node. */
export function groupOfNodeId(id: string): string | null {
  return id.startsWith(PREFIX) ? id.slice(PREFIX.length) : null;
}

/** A node's size before React Flow has measured it (the first frame only). */
export const UNMEASURED = { width: 220, height: 120 };

/** A canvas node's box: its position and measured size. */
export function boxOf(node: Node): LayoutBox {
  return {
    id: node.id,
    x: node.position.x,
    y: node.position.y,
    width: node.measured?.width ?? node.width ?? UNMEASURED.width,
    height: node.measured?.height ?? node.height ?? UNMEASURED.height,
  };
}

/**
 * A frame node per group, from the flow nodes as drawn now (live positions,
 * measured sizes). `previous` keeps React Flow's own state of each frame
 * (selection, drag) across renders.
 */
export function toGroupNodes(
  doc: FlowDocument,
  flowNodes: readonly Node[],
  previous: readonly Node[],
): GroupCanvasNode[] {
  if (!doc.groups || doc.groups.length === 0) return [];
  const drawn = new Map(flowNodes.map((n) => [n.id, n]));
  const before = new Map(previous.map((n) => [n.id, n]));
  const frames: GroupCanvasNode[] = [];
  for (const group of doc.groups) {
    const members = group.nodes.flatMap((id) => {
      const node = drawn.get(id);
      return node ? [boxOf(node)] : [];
    });
    const frame = frameOf(members);
    if (!frame) continue;
    const id = groupNodeId(group.id);
    const old = before.get(id);
    frames.push({
      id,
      type: 'frame',
      position: { x: frame.x, y: frame.y },
      width: frame.width,
      height: frame.height,
      selected: old?.selected ?? false,
      dragging: old?.dragging ?? false,
      // Behind every flow node, even when selected (React Flow lifts a selected node by 1000).
      zIndex: -1001,
      dragHandle: '.fb-group-title',
      data: { group: group.id, title: group.title, color: group.color, members: group.nodes },
    });
  }
  return frames;
}

/**
 * React Flow reports a frame being dragged as position changes of the frame;
 * this adds a change per member moving it by the same delta (members that
 * are themselves being dragged already move). The frame's old position and
 * its members' come from the same render, so the result is exact even when
 * several changes arrive before the next render.
 */
export function withMemberMoves<N extends Node>(
  changes: readonly NodeChange<N>[],
  nodes: readonly Node[],
): NodeChange<N>[] {
  const frames = changes.filter(
    (c) => c.type === 'position' && c.position && groupOfNodeId(c.id) !== null,
  );
  if (frames.length === 0) return [...changes];
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const moving = new Set(changes.filter((c) => c.type === 'position').map((c) => c.id));
  const extra: NodeChange<N>[] = [];
  for (const change of frames) {
    if (change.type !== 'position' || !change.position) continue;
    const frame = byId.get(change.id);
    if (!frame || frame.type !== 'frame') continue;
    const dx = change.position.x - frame.position.x;
    const dy = change.position.y - frame.position.y;
    for (const member of (frame.data as GroupNodeData).members) {
      const node = byId.get(member);
      if (!node || moving.has(member)) continue;
      moving.add(member);
      extra.push({
        type: 'position',
        id: member,
        position: { x: node.position.x + dx, y: node.position.y + dy },
        dragging: change.dragging,
      });
    }
  }
  return [...changes, ...extra];
}

/** What the canvas draws: the flow's nodes and the groups' frames. */
export type ShownNode = CanvasNode | GroupCanvasNode;

/** The flow nodes among what the canvas drew (frames left out). */
export function flowNodesOf(nodes: readonly ShownNode[]): CanvasNode[] {
  return nodes.filter((n): n is CanvasNode => n.type !== 'frame');
}
