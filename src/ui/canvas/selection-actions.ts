/**
 * What can be done to a selection of nodes, shared by the keyboard shortcuts
 * and the canvas's context menu: copy, cut, paste, duplicate, delete and
 * bypass. Each change is one entry of the history. The last copy is kept
 * here too, so a copy made with the menu pastes with Ctrl/⌘+V and back.
 */
import {
  copySelection,
  parseClipboard,
  pasteInto,
  type ClipboardPayload,
} from '../store/clipboard';
import { defaultParams } from '../../core/catalog/catalog';
import type { NodeKind } from '../../core/catalog/kind';
import { edits, freshNodeId, type EditorStore } from '../store/editor';
import { setBypass } from '../store/node-edits';

/** The last copied selection in this tab (the system clipboard may be out of reach). */
export const lastCopied: { current: ClipboardPayload | null } = { current: null };

const PASTE_OFFSET = { x: 40, y: 40 };

/** Only ids of the open flow's nodes (the canvas also draws frames, which are not nodes). */
export function flowNodeIds(store: EditorStore, ids: Iterable<string>): string[] {
  const known = new Set(store.getState().doc?.nodes.map((n) => n.id));
  return [...ids].filter((id) => known.has(id));
}

export function copyNodes(store: EditorStore, ids: readonly string[]): boolean {
  const doc = store.getState().doc;
  if (!doc || ids.length === 0) return false;
  lastCopied.current = copySelection(doc, new Set(ids));
  // The system clipboard carries a copy to other tabs; it is missing on insecure origins.
  const text = JSON.stringify(lastCopied.current);
  void Promise.resolve()
    .then(() => navigator.clipboard.writeText(text))
    .catch(() => undefined);
  return true;
}

export function cutNodes(store: EditorStore, ids: readonly string[]): void {
  if (!copyNodes(store, ids)) return;
  store.getState().changeDoc({ ...edits.removeNodes(ids), label: 'Cut' });
}

export function deleteNodes(store: EditorStore, ids: readonly string[]): void {
  if (ids.length === 0) return;
  store.getState().changeDoc(edits.removeNodes(ids));
  if (ids.includes(store.getState().selectedNode ?? '')) store.getState().selectNode(null);
}

/** What a paste would paste: the system clipboard when it holds nodes, else the last copy here. */
export async function readClipboard(): Promise<ClipboardPayload | null> {
  try {
    return parseClipboard(await navigator.clipboard.readText()) ?? lastCopied.current;
  } catch {
    return lastCopied.current;
  }
}

/**
 * Paste `payload` as one edit: beside where it came from, or with its
 * top-left node at `at` (a flow position, e.g. where the menu was opened).
 */
export function pasteNodes(
  store: EditorStore,
  payload: ClipboardPayload | null,
  label: string,
  at?: { x: number; y: number },
): void {
  const doc = store.getState().doc;
  if (!doc || !payload || payload.nodes.length === 0) return;
  const offset = at
    ? {
        x: at.x - Math.min(...payload.nodes.map((n) => n.position.x)),
        y: at.y - Math.min(...payload.nodes.map((n) => n.position.y)),
      }
    : PASTE_OFFSET;
  const { nodes, edges } = pasteInto(doc, payload, offset);
  store.getState().changeDoc(edits.addNodes(nodes, edges, label));
  // The next paste lands beside this one, not on top of it.
  lastCopied.current = { ...payload, nodes, edges };
}

export function duplicateNodes(store: EditorStore, ids: readonly string[]): void {
  const doc = store.getState().doc;
  if (doc && ids.length > 0) pasteNodes(store, copySelection(doc, new Set(ids)), 'Duplicate');
}

/** Bypass the nodes, or stop bypassing them when every one already is. */
export function toggleBypass(store: EditorStore, ids: readonly string[]): void {
  const doc = store.getState().doc;
  if (!doc || ids.length === 0) return;
  const all = ids.every((id) => doc.nodes.find((n) => n.id === id)?.bypass === true);
  store.getState().changeDoc(setBypass(ids, !all));
}

/** Add a node of `kind` with its default params at a flow position, select it; one edit. */
export function addNodeAt(store: EditorStore, kind: NodeKind, position: { x: number; y: number }) {
  const doc = store.getState().doc;
  if (!doc) return;
  const id = freshNodeId(doc, kind.kind);
  store
    .getState()
    .changeDoc(edits.addNodes([{ id, kind: kind.kind, params: defaultParams(kind), position }]));
  store.getState().selectNode(id);
}
