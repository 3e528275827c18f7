/**
 * Said when another tab saved the open flow while this tab had edits not yet
 * saved: this tab stops saving until the person chooses, so neither tab's
 * edits are lost.
 */
import { resolveConflict } from '../library';
import { useEditor, useEditorStore } from '../store/context';
import './panels.css';

export function ConflictAlert() {
  const store = useEditorStore();
  const conflict = useEditor((s) => s.conflict);
  const name = useEditor((s) => s.doc?.name);
  if (!conflict) return null;
  const choose = (choice: Parameters<typeof resolveConflict>[1]) => () =>
    void resolveConflict(store, choice).catch((error: unknown) =>
      store.getState().alert(`Could not settle the conflict: ${String(error)}`),
    );
  return (
    <div role="alert" className="fb-alert fb-conflict">
      <p>
        Another tab saved “{name}” (version {conflict.version}) while this tab had edits not yet
        saved. Nothing is saved here until you choose.
      </p>
      <button type="button" onClick={choose('reload-theirs')}>
        Reload theirs
      </button>
      <button type="button" onClick={choose('keep-mine-as-copy')}>
        Keep mine as a copy
      </button>
    </div>
  );
}
