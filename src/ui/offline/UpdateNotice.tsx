/**
 * "Update available — Reload": shown once a new version of the app is
 * installed. The reload is the person's to make, and not while a run is
 * queued or running (reloading would cut the run off): the button waits,
 * disabled, until the runs are done.
 */
import { useRunList } from '../runs/queries';
import { applyUpdate, useUpdateWaiting } from './service-worker';

export function UpdateNotice() {
  const waiting = useUpdateWaiting();
  const runs = useRunList();
  if (!waiting) return null;
  const busy = runs?.some((run) => run.status === 'queued' || run.status === 'running') ?? true;
  return (
    <div className="fb-update" role="status">
      <span>Update available</span>
      <button
        type="button"
        disabled={busy}
        title={busy ? 'Reload when the running runs have finished' : 'Load the new version'}
        onClick={applyUpdate}
      >
        Reload
      </button>
    </div>
  );
}
