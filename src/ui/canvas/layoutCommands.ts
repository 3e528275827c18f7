/**
 * The layout commands of the canvas: align, distribute, auto-layout, group
 * and ungroup. Each reads the selection and the drawn sizes from React Flow,
 * computes the change with the pure functions of `core/flow`, and applies
 * it as one edit, so one undo takes the whole command back. A command that
 * cannot act on the selection says why and changes nothing.
 */
import type { Node } from '@xyflow/react';
import { parsePortRef, type FlowDocument } from '../../core/flow/document';
import { groupNodes, groupOf, ungroup } from '../../core/flow/groups';
import {
  alignBoxes,
  autoLayout,
  distributeBoxes,
  type Alignment,
  type Positions,
} from '../../core/flow/layout';
import type { EditorStore } from '../store/editor';
import { edits } from '../store/editor';
import { boxOf, groupOfNodeId } from './groupNodes';

export type LayoutCommandId =
  | `align-${Alignment}`
  | 'distribute-horizontal'
  | 'distribute-vertical'
  | 'auto-layout'
  | 'group'
  | 'ungroup';

export interface LayoutCommand {
  id: LayoutCommandId;
  /** The button's accessible name and the history entry's label. */
  name: string;
  /** What the toolbar button shows. */
  icon: string;
  /** The shortcut as the help dialog shows it. */
  keys: string;
  /** Whether a key press is this command's shortcut (by physical key, so ⌥ on a Mac works). */
  matches: (event: KeyboardEvent) => boolean;
}

const alt =
  (code: string, shift = false) =>
  (e: KeyboardEvent) =>
    e.altKey && !e.ctrlKey && !e.metaKey && e.shiftKey === shift && e.code === code;
const mod =
  (code: string, shift = false) =>
  (e: KeyboardEvent) =>
    (e.ctrlKey || e.metaKey) && !e.altKey && e.shiftKey === shift && e.code === code;

/** Every layout command, in toolbar order; the shortcuts follow common design tools. */
export const layoutCommands: readonly LayoutCommand[] = [
  { id: 'align-left', name: 'Align left', icon: '⇤', keys: 'Alt + A', matches: alt('KeyA') },
  { id: 'align-centre', name: 'Align centre', icon: '↔', keys: 'Alt + H', matches: alt('KeyH') },
  { id: 'align-right', name: 'Align right', icon: '⇥', keys: 'Alt + D', matches: alt('KeyD') },
  { id: 'align-top', name: 'Align top', icon: '⤒', keys: 'Alt + W', matches: alt('KeyW') },
  { id: 'align-middle', name: 'Align middle', icon: '↕', keys: 'Alt + V', matches: alt('KeyV') },
  { id: 'align-bottom', name: 'Align bottom', icon: '⤓', keys: 'Alt + S', matches: alt('KeyS') },
  {
    id: 'distribute-horizontal',
    name: 'Distribute horizontally',
    icon: '⋯',
    keys: 'Alt + Shift + H',
    matches: alt('KeyH', true),
  },
  {
    id: 'distribute-vertical',
    name: 'Distribute vertically',
    icon: '⋮',
    keys: 'Alt + Shift + V',
    matches: alt('KeyV', true),
  },
  {
    id: 'auto-layout',
    name: 'Auto-layout',
    icon: 'Auto-layout',
    keys: 'Alt + L',
    matches: alt('KeyL'),
  },
  { id: 'group', name: 'Group', icon: 'Group', keys: 'Ctrl/⌘ + G', matches: mod('KeyG') },
  {
    id: 'ungroup',
    name: 'Ungroup',
    icon: 'Ungroup',
    keys: 'Ctrl/⌘ + Shift + G',
    matches: mod('KeyG', true),
  },
];

/** The shortcuts of the layout commands, as the help dialog lists them. */
export const layoutShortcuts = layoutCommands.map((c) => ({
  keys: c.keys,
  action: c.id === 'auto-layout' ? 'Auto-layout the selection, or the whole flow' : c.name,
}));

/**
 * Run a layout command on the open flow. `nodes` are React Flow's nodes as
 * drawn (selection, measured sizes). Returns a message when the command
 * cannot act (nothing is changed then), or null when it ran.
 */
export function runLayoutCommand(
  store: EditorStore,
  id: LayoutCommandId,
  nodes: readonly Node[],
): string | null {
  const { doc, changeDoc } = store.getState();
  if (!doc) return null;
  const selected = nodes.filter((n) => n.selected && groupOfNodeId(n.id) === null);
  const name = layoutCommands.find((c) => c.id === id)?.name ?? id;
  const move = (moves: Positions) => {
    if (moves.size > 0) changeDoc({ ...edits.moveNodes(moves), label: name });
  };

  if (id.startsWith('align-')) {
    if (selected.length < 2) return `${name}: select two or more nodes to align`;
    move(alignBoxes(selected.map(boxOf), id.slice('align-'.length) as Alignment));
    return null;
  }
  if (id === 'distribute-horizontal' || id === 'distribute-vertical') {
    if (selected.length < 3) return `${name}: select three or more nodes to distribute`;
    move(
      distributeBoxes(
        selected.map(boxOf),
        id === 'distribute-horizontal' ? 'horizontal' : 'vertical',
      ),
    );
    return null;
  }
  if (id === 'auto-layout') {
    // Two or more selected nodes are laid out alone; otherwise the whole flow.
    const part =
      selected.length >= 2 ? selected : nodes.filter((n) => groupOfNodeId(n.id) === null);
    const moves = autoLayoutNodes(doc, part);
    if (moves.size > 0)
      changeDoc({
        ...edits.moveNodes(moves),
        label:
          part.length === doc.nodes.length ? 'Auto-layout' : `Auto-layout ${part.length} nodes`,
      });
    return null;
  }
  if (id === 'group') {
    if (selected.length === 0) return 'Group: select the nodes to group';
    const ids = selected.map((n) => n.id);
    changeDoc({
      label: `Group ${ids.length === 1 ? ids[0]! : `${ids.length} nodes`}`,
      apply: (current) => groupNodes(current, ids).flow,
    });
    return null;
  }
  // Ungroup the selected frames, or else the groups of the selected nodes.
  const frames = nodes.flatMap((n) => {
    const group = n.selected ? groupOfNodeId(n.id) : null;
    return group === null ? [] : [group];
  });
  const groups =
    frames.length > 0
      ? frames
      : [...new Set(selected.flatMap((n) => groupOf(doc, n.id)?.id ?? []))];
  if (groups.length === 0) return 'Ungroup: select a group, or a node in one';
  changeDoc(ungroupEdit(groups));
  return null;
}

/** Where auto-layout puts `nodes` (as drawn, with their measured sizes) of `doc`. */
export function autoLayoutNodes(doc: FlowDocument, nodes: readonly Node[]): Positions {
  const links = doc.edges.map((e) => ({
    from: parsePortRef(e.from).node,
    to: parsePortRef(e.to).node,
  }));
  return autoLayout(nodes.map(boxOf), links);
}

/** The edit that dissolves groups, keeping their nodes (also what deleting a frame does). */
export function ungroupEdit(groups: readonly string[]) {
  return {
    label: groups.length === 1 ? `Ungroup ${groups[0]!}` : `Ungroup ${groups.length} groups`,
    apply: (doc: Parameters<typeof ungroup>[0]) => ungroup(doc, groups),
  };
}
