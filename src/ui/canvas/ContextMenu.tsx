/**
 * The canvas's context menu: on a node or a selection (copy, cut, paste,
 * duplicate, delete, bypass) and on the empty canvas (paste, add node…).
 * Opened by a right-click, or by the context-menu key or Shift+F10 on a
 * focused node. A menu in the ARIA sense: arrow keys move, Escape closes.
 */
import { useEffect, useRef, type KeyboardEvent } from 'react';
import { useEditor, useEditorStore } from '../store/context';
import {
  copyNodes,
  cutNodes,
  deleteNodes,
  duplicateNodes,
  pasteNodes,
  readClipboard,
  toggleBypass,
} from './selection-actions';
import { useRunActions } from '../engine/actions';
import './canvas.css';

/** Where a menu was opened and on what. */
export interface MenuTarget {
  /** Screen point (client pixels) where the menu shows. */
  screen: { x: number; y: number };
  /** The same point on the flow, where a paste or a new node lands. */
  at: { x: number; y: number };
  /** The nodes it acts on; empty on the canvas itself. */
  nodes: readonly string[];
}

export function ContextMenu({
  target,
  onClose,
  onAddNode,
}: {
  target: MenuTarget;
  onClose: () => void;
  onAddNode: (target: MenuTarget) => void;
}) {
  const store = useEditorStore();
  const { run } = useRunActions();
  const ref = useRef<HTMLDivElement>(null);
  const { nodes } = target;
  const bypassed = useEditor(
    (s) =>
      nodes.length > 0 &&
      nodes.every((id) => s.doc?.nodes.find((n) => n.id === id)?.bypass === true),
  );

  useEffect(() => {
    ref.current?.querySelector<HTMLElement>('[role^="menuitem"]')?.focus();
    const away = (event: PointerEvent) => {
      if (!ref.current?.contains(event.target as Node)) onClose();
    };
    window.addEventListener('pointerdown', away, true);
    return () => window.removeEventListener('pointerdown', away, true);
  }, [onClose]);

  const act = (action: () => void) => () => {
    onClose();
    action();
  };
  const paste = act(
    () => void readClipboard().then((payload) => pasteNodes(store, payload, 'Paste', target.at)),
  );

  const onKeyDown = (event: KeyboardEvent) => {
    const items = [...(ref.current?.querySelectorAll<HTMLElement>('[role^="menuitem"]') ?? [])];
    const index = items.indexOf(document.activeElement as HTMLElement);
    const move = (to: number) => items[(to + items.length) % items.length]?.focus();
    if (event.key === 'ArrowDown') move(index + 1);
    else if (event.key === 'ArrowUp') move(index - 1);
    else if (event.key === 'Home') move(0);
    else if (event.key === 'End') move(-1);
    else if (event.key === 'Escape' || event.key === 'Tab') onClose();
    else return;
    event.preventDefault();
    event.stopPropagation();
  };

  const label =
    nodes.length === 0
      ? 'Canvas menu'
      : nodes.length === 1
        ? `Node ${nodes[0]!} menu`
        : `${nodes.length} nodes menu`;
  return (
    <div
      ref={ref}
      role="menu"
      aria-label={label}
      className="fb-menu"
      style={{ left: target.screen.x, top: target.screen.y }}
      onKeyDown={onKeyDown}
      onContextMenu={(e) => e.preventDefault()}
    >
      {nodes.length > 0 ? (
        <>
          <Item label="Copy" keys="Ctrl+C" onClick={act(() => copyNodes(store, nodes))} />
          <Item label="Cut" keys="Ctrl+X" onClick={act(() => cutNodes(store, nodes))} />
          <Item label="Paste" keys="Ctrl+V" onClick={paste} />
          <Item label="Duplicate" keys="Ctrl+D" onClick={act(() => duplicateNodes(store, nodes))} />
          <Item label="Delete" keys="Del" onClick={act(() => deleteNodes(store, nodes))} />
          <button
            type="button"
            role="menuitemcheckbox"
            aria-checked={bypassed}
            tabIndex={-1}
            onClick={act(() => toggleBypass(store, nodes))}
          >
            Bypass <kbd aria-hidden="true">Ctrl+B</kbd>
          </button>
          {nodes.length === 1 && (
            <>
              <Item label="Run to here" keys="" onClick={act(() => void run({ to: nodes[0]! }))} />
              <Item
                label="Run from here"
                keys=""
                onClick={act(() => void run({ from: nodes[0]! }))}
              />
            </>
          )}
        </>
      ) : (
        <>
          <Item label="Paste" keys="Ctrl+V" onClick={paste} />
          <Item label="Add node…" keys="double-click" onClick={act(() => onAddNode(target))} />
        </>
      )}
    </div>
  );
}

function Item({ label, keys, onClick }: { label: string; keys: string; onClick: () => void }) {
  return (
    <button
      type="button"
      role="menuitem"
      tabIndex={-1}

      onClick={onClick}
    >
      {label} <kbd aria-hidden="true">{keys}</kbd>
    </button>
  );
}
