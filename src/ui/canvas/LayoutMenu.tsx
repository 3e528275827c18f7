/**
 * The canvas's layout toolbar: align and distribute the selected nodes,
 * auto-layout, group and ungroup, each a button named for what it does and
 * a keyboard shortcut (listed in the help dialog). It sits inside the canvas
 * so it reads the selection and the drawn sizes from React Flow.
 */
import { Panel, useReactFlow } from '@xyflow/react';
import { Fragment, useCallback, useEffect } from 'react';
import { typing } from '../shortcuts';
import { useEditorStore } from '../store/context';
import { layoutCommands, runLayoutCommand, type LayoutCommandId } from './layoutCommands';
import './layout.css';

/** Where the toolbar breaks into groups of related buttons. */
const breaksAfter: ReadonlySet<LayoutCommandId> = new Set([
  'align-bottom',
  'distribute-vertical',
  'auto-layout',
]);

export function LayoutMenu() {
  const store = useEditorStore();
  const flow = useReactFlow();

  const run = useCallback(
    (id: LayoutCommandId) => {
      const refused = runLayoutCommand(store, id, flow.getNodes());
      if (refused) store.getState().alert(refused);
    },
    [store, flow],
  );

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (typing(event.target) || document.querySelector('dialog[open]')) return;
      const command = layoutCommands.find((c) => c.matches(event));
      if (!command) return;
      event.preventDefault();
      run(command.id);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [run]);

  return (
    <Panel position="top-left">
      <div className="fb-layout-bar" role="toolbar" aria-label="Layout">
        {layoutCommands.map((c) => (
          <Fragment key={c.id}>
            <button
              type="button"
              aria-label={c.name}
              title={`${c.name} (${c.keys})`}
              onClick={() => run(c.id)}
            >
              {c.icon}
            </button>
            {breaksAfter.has(c.id) && <span role="separator" />}
          </Fragment>
        ))}
      </div>
    </Panel>
  );
}
