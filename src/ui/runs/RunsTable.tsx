/**
 * The `Runs` table: one row per run, filtered and sorted; clicking a row
 * selects it, the checkboxes pick several for export or deletion, and the
 * runs of a sweep show their group's progress.
 */
import { useMemo, useState } from 'react';
import {
  defaultRunListQuery,
  describeRunParams,
  groupProgress,
  queryRuns,
  type RunListQuery,
  type RunSortKey,
} from '../../core/run/run-list';
import { useEditor, useEditorStore } from '../store/context';
import { formatDuration, formatTime, formatValue, shortId } from './format';
import { useRuns } from './queries';
import { RunsToolbar } from './RunsToolbar';
import { StorageStatus } from './StorageStatus';
import './runs.css';

function SortHeader({
  label,
  sortKey,
  query,
  onSort,
}: {
  label: string;
  sortKey: RunSortKey;
  query: RunListQuery;
  onSort: (key: RunSortKey) => void;
}) {
  const active = query.sort === sortKey;
  return (
    <th scope="col" aria-sort={active ? (query.descending ? 'descending' : 'ascending') : 'none'}>
      <button type="button" className="fb-sort" onClick={() => onSort(sortKey)}>
        {label}
        {active ? (query.descending ? ' ↓' : ' ↑') : ''}
      </button>
    </th>
  );
}

export function RunsTable() {
  const store = useEditorStore();
  const runs = useRuns();
  const selected = useEditor((s) => s.selectedRun);
  const [query, setQuery] = useState<RunListQuery>(defaultRunListQuery);
  const picked = useEditor((s) => s.pickedRuns);
  const stopping = useEditor((s) => s.stopping);
  const shown = useMemo(() => queryRuns(runs ?? [], query), [runs, query]);
  const groups = useMemo(() => groupProgress(runs ?? []), [runs]);
  const sort = (key: RunSortKey) =>
    setQuery((q) => ({ ...q, sort: key, descending: q.sort === key ? !q.descending : true }));
  const pickedRuns = (runs ?? []).filter((r) => picked.includes(r.id));

  return (
    <section className="fb-runs">
      <RunsToolbar
        runs={runs ?? []}
        query={query}
        onQuery={setQuery}
        picked={pickedRuns}
        onDeleted={() => store.getState().setPicked([])}
      />
      <StorageStatus />
      <table aria-label="Runs">
        <thead>
          <tr>
            <th scope="col">
              <span className="fb-visually-hidden">Pick</span>
            </th>
            <th scope="col">Run</th>
            <SortHeader label="Flow" sortKey="flow" query={query} onSort={sort} />
            <th scope="col">Group</th>
            <SortHeader label="Status" sortKey="status" query={query} onSort={sort} />
            <th scope="col">Backend</th>
            <SortHeader label="Started" sortKey="started" query={query} onSort={sort} />
            <SortHeader label="Duration" sortKey="duration" query={query} onSort={sort} />
            <th scope="col">Params</th>
            <th scope="col">Result</th>
          </tr>
        </thead>
        <tbody>
          {runs?.length === 0 && (
            <tr>
              <td colSpan={10} className="fb-muted">
                No runs yet: press Run.
              </td>
            </tr>
          )}
          {shown.map((run) => {
            const group = run.groupId ? groups.get(run.groupId) : undefined;
            const stoppedBecause = run.status === 'running' ? stopping[run.id] : undefined;
            return (
              <tr
                key={run.id}
                aria-selected={run.id === selected}
                onClick={() => store.getState().selectRun(run.id)}
                className={`fb-run-row fb-run-${run.status}`}
              >
                <td onClick={(e) => e.stopPropagation()}>
                  <input
                    type="checkbox"
                    aria-label={`Pick run ${shortId(run.id)}`}
                    checked={picked.includes(run.id)}
                    onChange={() => store.getState().togglePicked(run.id)}
                  />
                </td>
                <td title={run.id}>
                  <code>{shortId(run.id)}</code>
                </td>
                <td>{run.flow}</td>
                <td title={run.groupId ?? undefined}>
                  {group && run.groupId
                    ? `sweep ${shortId(run.groupId)} · ${group.done}/${group.total}`
                    : ''}
                </td>
                <td title={stoppedBecause ? `Stopped: ${stoppedBecause}` : undefined}>
                  {run.status}
                </td>
                <td>{run.engine?.backend ?? run.backendChoice}</td>
                <td>{formatTime(run.startedAt)}</td>
                <td>{formatDuration(run.durationMs)}</td>
                <td>{describeRunParams(run)}</td>
                <td>
                  {Object.entries(run.result)
                    .map(([k, v]) => `${k} ${formatValue(v)}`)
                    .join(', ')}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
