/** The undo history of the open flow: every edit by name; clicking one goes back (or forward) to it. */
import { useEditor, useEditorStore } from '../store/context';
import './panels.css';

export function HistoryPanel() {
  const store = useEditorStore();
  const history = useEditor((s) => s.history);
  const at = history.past.length;
  const labels = [...history.past, ...history.future].map((e) => e.label);
  return (
    <section className="fb-history">
      <h2 id="history-title">History</h2>
      <div className="fb-toolbar-group">
        <button type="button" disabled={at === 0} onClick={() => store.getState().undo()}>
          Undo
        </button>
        <button
          type="button"
          disabled={history.future.length === 0}
          onClick={() => store.getState().redo()}
        >
          Redo
        </button>
      </div>
      <ol aria-labelledby="history-title">
        <li>
          <button
            type="button"
            aria-current={at === 0 ? 'step' : undefined}
            onClick={() => store.getState().jumpTo(0)}
          >
            Opened
          </button>
        </li>
        {labels.map((label, i) => (
          <li key={`${i}:${label}`} className={i >= at ? 'fb-undone' : undefined}>
            <button
              type="button"
              aria-current={at === i + 1 ? 'step' : undefined}
              onClick={() => store.getState().jumpTo(i + 1)}
            >
              {label}
            </button>
          </li>
        ))}
      </ol>
    </section>
  );
}
