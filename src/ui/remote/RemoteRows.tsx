/**
 * A run server's runs in the runs table, as rows of their own body above the
 * local runs: the same columns, a `remote` badge beside the id, and Import in
 * one click once the server holds the run's file. A run already imported is
 * shown once, as the local run it now is.
 */
import { shortId } from '../runs/format';
import { useEngine } from '../engine/EngineContext';
import { useEditor, useEditorStore } from '../store/context';
import type { RemoteRun } from './answers';
import { importRemoteRun } from './import';
import { remote, useRemote } from './remote-store';
import { describeRemoteParams, isImportable, remoteStatus } from './remote-words';
import './remote.css';

/** Import remote run `run` from a button; a refusal is an alert, and nothing is stored. */
export function useImportRemote() {
  const store = useEditorStore();
  const engine = useEngine();
  return (run: RemoteRun) =>
    importRemoteRun(store, engine, run.runId).catch((error: unknown) =>
      store.getState().alertError(error, `Could not import remote run ${run.runId}: `),
    );
}

export function RemoteRows({ localIds }: { localIds: ReadonlySet<string> }) {
  const store = useEditorStore();
  const runs = useRemote((s) => s.runs);
  const selected = useRemote((s) => s.selected);
  const localSelected = useEditor((s) => s.selectedRun);
  const importRun = useImportRemote();
  const shown = runs.filter((run) => !localIds.has(run.runId));
  if (shown.length === 0) return null;
  return (
    <tbody aria-label="Remote runs">
      {shown.map((run) => {
        const status = remoteStatus(run);
        return (
          <tr
            key={run.runId}
            aria-selected={localSelected === null && run.runId === selected}
            onClick={() => {
              store.getState().selectRun(null);
              remote.select(run.runId);
            }}
            className={`fb-run-row fb-remote-row fb-run-${status}`}
          >
            <td />
            <td title={run.runId}>
              <code>{shortId(run.runId)}</code>
              <span className="fb-remote-badge">remote</span>
            </td>
            <td>{run.flow}</td>
            <td title={run.sweepId}>{`sweep ${shortId(run.sweepId)} · #${run.index}`}</td>
            <td title={run.attempts > 1 ? `${run.attempts} attempts` : undefined}>{status}</td>
            <td>—</td>
            <td>—</td>
            <td>—</td>
            <td>{describeRemoteParams(run)}</td>
            <td onClick={(e) => e.stopPropagation()}>
              <button
                type="button"
                disabled={!isImportable(run)}
                title={isImportable(run) ? undefined : 'Its run file comes once it finished'}
                aria-label={`Import run ${shortId(run.runId)}`}
                onClick={() => void importRun(run)}
              >
                Import
              </button>
            </td>
          </tr>
        );
      })}
    </tbody>
  );
}
