/**
 * Quick add: double-click the empty canvas, type a few words of a node
 * kind's name or description, press Enter, and the highlighted kind is added
 * where you clicked. Arrow keys move the highlight; Escape closes.
 */
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { findKinds } from '../panels/kind-search';
import { useEditorStore } from '../store/context';
import { addNodeAt } from './selection-actions';
import './canvas.css';

export function QuickAdd({
  screen,
  at,
  onClose,
}: {
  screen: { x: number; y: number };
  at: { x: number; y: number };
  onClose: () => void;
}) {
  const store = useEditorStore();
  const ref = useRef<HTMLDivElement>(null);
  const [query, setQuery] = useState('');
  const [highlight, setHighlight] = useState(0);
  const kinds = findKinds(query);
  const current = kinds[Math.min(highlight, kinds.length - 1)];

  useEffect(() => {
    ref.current?.querySelector('input')?.focus();
    const away = (event: PointerEvent) => {
      if (!ref.current?.contains(event.target as Node)) onClose();
    };
    window.addEventListener('pointerdown', away, true);
    return () => window.removeEventListener('pointerdown', away, true);
  }, [onClose]);

  const add = (kind = current) => {
    if (!kind) return;
    onClose();
    addNodeAt(store, kind, at);
  };

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'ArrowDown') setHighlight((h) => Math.min(h + 1, kinds.length - 1));
    else if (event.key === 'ArrowUp') setHighlight((h) => Math.max(h - 1, 0));
    else if (event.key === 'Enter') add();
    else if (event.key === 'Escape') onClose();
    else return;
    event.preventDefault();
    event.stopPropagation();
  };

  return (
    <div
      ref={ref}
      role="dialog"
      aria-label="Quick add"
      className="fb-quick-add"
      style={{ left: screen.x, top: screen.y }}
    >
      <input
        type="search"
        aria-label="Find a node kind"
        placeholder="Find a node…"
        role="combobox"
        aria-expanded="true"
        aria-controls="fb-quick-add-kinds"
        aria-activedescendant={current ? `fb-quick-add-${current.kind}` : undefined}
        value={query}
        onChange={(e) => {
          setQuery(e.currentTarget.value);
          setHighlight(0);
        }}
        onKeyDown={onKeyDown}
      />
      <ul id="fb-quick-add-kinds" role="listbox" aria-label="Node kinds">
        {kinds.map((kind) => (
          <li
            key={kind.kind}
            id={`fb-quick-add-${kind.kind}`}
            role="option"
            aria-selected={kind === current}
            title={kind.description}
            onPointerDown={(e) => e.preventDefault()}
            onClick={() => add(kind)}
          >
            {kind.title} <code>{kind.kind}</code>
          </li>
        ))}
        {kinds.length === 0 && <li className="fb-muted">No node kind matches “{query}”.</li>}
      </ul>
    </div>
  );
}
