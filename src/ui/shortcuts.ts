/**
 * Keyboard shortcuts of the workbench, in one table that the help dialog
 * lists too. Shortcuts that edit the flow are ignored while typing in a
 * field, where the browser's own undo, copy and paste apply.
 */
import { useReactFlow } from '@xyflow/react';
import { useEffect, useEffectEvent, useRef } from 'react';
import { useRunActions } from './engine/actions';
import { useEditorStore } from './store/context';
import { copySelection, parseClipboard, pasteInto, type ClipboardPayload } from './store/clipboard';
import { edits } from './store/editor';
import type { CanvasNode } from './canvas/adapter';
import { layoutShortcuts } from './canvas/layoutCommands';
import { getRun } from '../db/runs';
import { db } from './db';
import { flowNodeIds, lastCopied, toggleBypass } from './canvas/selection-actions';

export const shortcutList: readonly { keys: string; action: string }[] = [
  { keys: 'Ctrl/⌘ + Enter', action: 'Run the open flow' },
  { keys: 'Esc, Esc', action: 'Cancel the selected run' },
  { keys: 'Ctrl/⌘ + Z', action: 'Undo' },
  { keys: 'Ctrl/⌘ + Shift + Z, Ctrl + Y', action: 'Redo' },
  { keys: 'Ctrl/⌘ + C / X / V', action: 'Copy, cut, paste the selected nodes' },
  { keys: 'Ctrl/⌘ + D', action: 'Duplicate the selected nodes' },
  { keys: 'Delete, Backspace', action: 'Delete the selected nodes or edges' },
  { keys: 'Ctrl/⌘ + A', action: 'Select every node (on the canvas)' },
  { keys: 'Shift + drag', action: 'Select nodes in a box' },
  { keys: 'Ctrl/⌘ + B', action: 'Bypass the selected nodes (or stop bypassing them)' },
  { keys: 'Right-click, Shift + F10', action: 'Menu of the node, the selection or the canvas' },
  { keys: 'Double-click the canvas', action: 'Quick add: find a node kind, Enter adds it there' },
  ...layoutShortcuts,
  { keys: '?', action: 'Show these shortcuts' },
];

const PASTE_OFFSET = { x: 40, y: 40 };
/** Two presses of Escape within this time cancel the selected run. */
const DOUBLE_ESCAPE_MS = 600;

/** Whether a key press goes to a field (where the browser's own keys apply). */
export function typing(target: EventTarget | null): boolean {
  return (
    target instanceof HTMLElement &&
    (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName))
  );
}

export function useShortcuts(onHelp: () => void): void {
  const store = useEditorStore();
  const flow = useReactFlow<CanvasNode>();
  const { run, cancel } = useRunActions();
  const lastEscape = useRef(0);
  // The latest actions, read when a key is pressed (not a dependency of the listener).
  const actions = useEffectEvent(() => ({ run, cancel, onHelp }));

  useEffect(() => {
    const selectedIds = () =>
      new Set(
        flow
          .getNodes()
          .filter((n) => n.selected)
          .map((n) => n.id),
      );

    const copy = () => {
      const doc = store.getState().doc;
      const ids = selectedIds();
      if (!doc || ids.size === 0) return false;
      lastCopied.current = copySelection(doc, ids);
      // The system clipboard carries a copy to other tabs; it is missing on insecure origins.
      const text = JSON.stringify(lastCopied.current);
      void Promise.resolve()
        .then(() => navigator.clipboard.writeText(text))
        .catch(() => undefined);
      return true;
    };

    const paste = (payload: ClipboardPayload | null, label: string) => {
      const doc = store.getState().doc;
      if (!doc || !payload || payload.nodes.length === 0) return;
      const { nodes, edges } = pasteInto(doc, payload, PASTE_OFFSET);
      store.getState().changeDoc(edits.addNodes(nodes, edges, label));
      // The next paste lands beside this one, not on top of it.
      lastCopied.current = { ...payload, nodes, edges };
    };

    const readClipboard = async (): Promise<ClipboardPayload | null> => {
      try {
        return parseClipboard(await navigator.clipboard.readText()) ?? lastCopied.current;
      } catch {
        return lastCopied.current;
      }
    };

    const onKey = (event: KeyboardEvent) => {
      const mod = event.ctrlKey || event.metaKey;
      const key = event.key.toLowerCase();
      if (mod && key === 'enter') {
        event.preventDefault();
        void actions().run();
        return;
      }
      if (typing(event.target) || document.querySelector('dialog[open]')) return;
      const state = store.getState();
      if (key === 'escape') {
        const now = Date.now();
        if (now - lastEscape.current < DOUBLE_ESCAPE_MS && state.selectedRun) {
          void getRun(db, state.selectedRun).then((r) => r && actions().cancel(r));
          lastEscape.current = 0;
        } else lastEscape.current = now;
        return;
      }
      if (!mod && event.key === '?') {
        actions().onHelp();
        return;
      }
      if (!mod) return;
      if (key === 'z' && !event.shiftKey) state.undo();
      else if ((key === 'z' && event.shiftKey) || key === 'y') state.redo();
      else if (key === 'c') {
        if (!copy()) return;
      } else if (key === 'x') {
        if (!copy()) return;
        state.changeDoc({ ...edits.removeNodes([...selectedIds()]), label: 'Cut' });
      } else if (key === 'v') void readClipboard().then((p) => paste(p, 'Paste'));
      else if (key === 'd') {
        const doc = state.doc;
        if (doc) paste(copySelection(doc, selectedIds()), 'Duplicate');
      } else if (key === 'b') toggleBypass(store, flowNodeIds(store, selectedIds()));
      else return;
      event.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [store, flow]);
}
