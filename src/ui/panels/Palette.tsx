/**
 * The node palette: every kind in the catalog, added at the centre of the
 * view. Each button shows the kind's title, then its category chip.
 */
import { useReactFlow } from '@xyflow/react';
import { useState } from 'react';
import { defaultParams } from '../../core/catalog/catalog';
import { builtinKinds } from '../../core/nodes';
import { nodeCategoryRules } from '../colours';
import { useEditorStore } from '../store/context';
import { edits, freshNodeId } from '../store/editor';
import { findKinds } from './kind-search';
import './panels.css';

export function Palette() {
  const store = useEditorStore();
  const flow = useReactFlow();
  const [query, setQuery] = useState('');
  const kinds = findKinds(query);

  const add = (kindName: string) => {
    const kind = builtinKinds.find((k) => k.kind === kindName);
    const doc = store.getState().doc;
    if (!kind || !doc) return;
    const bounds = document.querySelector('.fb-canvas')?.getBoundingClientRect();
    const centre = bounds
      ? flow.screenToFlowPosition({
          x: bounds.x + bounds.width / 2,
          y: bounds.y + bounds.height / 2,
        })
      : { x: 0, y: 0 };
    const id = freshNodeId(doc, kind.kind);
    store
      .getState()
      .changeDoc(
        edits.addNodes([{ id, kind: kind.kind, params: defaultParams(kind), position: centre }]),
      );
    store.getState().selectNode(id);
  };

  return (
    <section className="fb-palette" aria-label="Palette">
      <style href="fb-node-categories" precedence="fb">
        {nodeCategoryRules}
      </style>
      <h2>Nodes</h2>
      <input
        type="search"
        placeholder="Find a node…"
        aria-label="Find a node"
        value={query}
        onChange={(e) => setQuery(e.currentTarget.value)}
      />
      <ul>
        {kinds.map((kind) => (
          <li key={kind.kind}>
            {/* The name starts with what the button shows, so a person who
                speaks to the page ("click MLP") reaches it; the verb is in
                the description (the tooltip). */}
            <button
              type="button"
              aria-label={`${kind.title} (${kind.category})`}
              title={`Add to the flow: ${kind.description}`}
              onClick={() => add(kind.kind)}
            >
              {/* The space keeps the two words apart in the text the button shows. */}
              <span className="fb-palette-kind">{kind.title}</span>{' '}
              <span className={`fb-cat fb-cat-${kind.category}`}>{kind.category}</span>
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
