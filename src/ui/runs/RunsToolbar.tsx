/** Above the runs table: filter, sort by a param or result, and actions on the picked runs. */
import { useRef } from 'react';
import { toRunExport } from '../../core/run/export';
import { runStatuses, type RunStatus } from '../../core/run/record';
import type { RunEntry } from '../../core/run/run-entry';
import { sortableNames, type RunListQuery, type RunSortKey } from '../../core/run/run-list';
import { deleteRuns, readRunRecord } from '../../db/runs';
import { RunDiffButton } from '../analysis/RunDiff';
import { ExportMetricsButtons } from '../analysis/ExportMetrics';
import { db } from '../db';
import { download } from '../files';
import { useEditorStore } from '../store/context';
import './runs.css';

export function RunsToolbar({
  runs,
  query,
  onQuery,
  picked,
  onDeleted,
}: {
  runs: readonly RunEntry[];
  query: RunListQuery;
  onQuery: (query: RunListQuery) => void;
  picked: readonly RunEntry[];
  onDeleted: () => void;
}) {
  const store = useEditorStore();
  const confirm = useRef<HTMLDialogElement>(null);
  const names = sortableNames(runs);

  const exportPicked = async () => {
    for (const run of picked) {
      const record = await readRunRecord(db, run.id);
      if (record) download(`${run.id}.run.json`, toRunExport(record));
    }
  };

  const deletePicked = async () => {
    confirm.current?.close();
    try {
      await deleteRuns(
        db,
        picked.map((r) => r.id),
      );
      if (picked.some((r) => r.id === store.getState().selectedRun))
        store.getState().selectRun(null);
      onDeleted();
    } catch (error) {
      store.getState().alert(error instanceof Error ? error.message : String(error));
    }
  };

  return (
    <div className="fb-runs-toolbar">
      <input
        type="search"
        aria-label="Filter runs"
        placeholder="Filter: flow, status, lr=0.1 …"
        value={query.text}
        onChange={(e) => onQuery({ ...query, text: e.currentTarget.value })}
      />
      <label htmlFor="runs-status">Status</label>
      <select
        id="runs-status"
        value={query.status}
        onChange={(e) => onQuery({ ...query, status: e.currentTarget.value as RunStatus | 'all' })}
      >
        <option value="all">all</option>
        {runStatuses.map((s) => (
          <option key={s}>{s}</option>
        ))}
      </select>
      <label htmlFor="runs-sort">Sort by</label>
      <select
        id="runs-sort"
        value={query.sort}
        onChange={(e) =>
          onQuery({ ...query, sort: e.currentTarget.value as RunSortKey, descending: true })
        }
      >
        <option value="started">started</option>
        <option value="status">status</option>
        <option value="flow">flow</option>
        <option value="duration">duration</option>
        {names.params.map((p) => (
          <option key={p} value={`param:${p}`}>
            param {p}
          </option>
        ))}
        {names.results.map((r) => (
          <option key={r} value={`result:${r}`}>
            result {r}
          </option>
        ))}
      </select>
      <span className="fb-spacer" />
      <RunDiffButton picked={picked.map((r) => r.id)} />
      <ExportMetricsButtons picked={picked.map((r) => r.id)} />
      <button type="button" disabled={picked.length === 0} onClick={() => void exportPicked()}>
        Export picked
      </button>
      <button
        type="button"
        disabled={picked.length === 0}
        onClick={() => confirm.current?.showModal()}
      >
        Delete picked
      </button>
      <dialog ref={confirm} className="fb-dialog" aria-labelledby="delete-runs-title">
        <h2 id="delete-runs-title">
          Delete {picked.length} run{picked.length === 1 ? '' : 's'}?
        </h2>
        <p>Their node outcomes, metrics and artifacts are deleted too. This cannot be undone.</p>
        <div className="fb-toolbar-group">
          <button type="button" className="fb-danger" onClick={() => void deletePicked()}>
            Delete
          </button>
          <button type="button" onClick={() => confirm.current?.close()}>
            Keep them
          </button>
        </div>
      </dialog>
    </div>
  );
}
