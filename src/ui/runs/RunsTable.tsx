/**
 * The `Runs` table: one row per run, filtered and sorted; clicking a row
 * selects it, the checkboxes pick several for export or deletion, and the
 * runs of a sweep show their group's progress. It reads the run list (small
 * entries, changed ones only) and renders only the rows in view
 * (`virtual-rows.ts`), so a thousand runs cost what forty do.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import {
  defaultRunListQuery,
  describeRunParams,
  groupProgress,
  makeFilterTexts,
  queryRuns,
  type RunListQuery,
  type RunSortKey,
} from '../../core/run/run-list';
import type { RunId } from '../../core/run/record';
import { useEditor, useEditorStore } from '../store/context';
import { formatDuration, formatTime, formatValue, shortId } from './format';
import { useRunList } from './queries';
import { useVirtualRows } from './virtual-rows';
import { RunsToolbar } from './RunsToolbar';
import { StorageStatus } from './StorageStatus';
import { CacheStatus } from './CacheStatus';
import { ConnectBar } from '../remote/ConnectBar';
import { RemoteRows } from '../remote/RemoteRows';
import { remote } from '../remote/remote-store';
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

/**
 * The header's checkbox: ticked when every run the table shows (under its
 * filter and the brushes) is picked, half-ticked when some are. A click picks
 * them all, or, when all are picked, unpicks them; runs picked that the table
 * does not show stay as they are.
 */
function PickAllShown({
  shown,
  picked,
}: {
  shown: readonly { id: RunId }[];
  picked: ReadonlySet<RunId>;
}) {
  const store = useEditorStore();
  const box = useRef<HTMLInputElement>(null);
  const count = shown.filter((run) => picked.has(run.id)).length;
  const all = shown.length > 0 && count === shown.length;
  useEffect(() => {
    if (box.current) box.current.indeterminate = count > 0 && !all;
  }, [count, all]);
  const toggle = () => {
    const ids = new Set(shown.map((run) => run.id));
    const current = store.getState().pickedRuns;
    store
      .getState()
      .setPicked(
        all
          ? current.filter((id) => !ids.has(id))
          : [...current, ...[...ids].filter((id) => !picked.has(id))],
      );
  };
  return (
    <input
      ref={box}
      type="checkbox"
      aria-label="Pick all shown"
      title={all ? 'Unpick the runs shown' : 'Pick every run shown'}
      disabled={shown.length === 0}
      checked={all}
      onChange={toggle}
    />
  );
}

/** Runs whose filter text is made in one task, ahead of a filter. */
const FILTER_TEXT_SLICE = 500;

/** `1,000 runs`, or `1,000 runs · 12 shown` while a filter is on. */
function describeCount(total: number, shown: number, filtered: boolean): string {
  const runs = `${total.toLocaleString('en')} run${total === 1 ? '' : 's'}`;
  return filtered ? `${runs} · ${shown.toLocaleString('en')} shown` : runs;
}

export function RunsTable() {
  const store = useEditorStore();
  const runs = useRunList();
  const selected = useEditor((s) => s.selectedRun);
  const [query, setQuery] = useState<RunListQuery>(defaultRunListQuery);
  const picked = useEditor((s) => s.pickedRuns);
  const stopping = useEditor((s) => s.stopping);
  // Brushing the parallel coordinates narrows the table to the runs inside the brushes.
  const brushed = useEditor((s) => s.brushedRuns);
  const shown = useMemo(() => {
    const queried = queryRuns(runs ?? [], query);
    return brushed ? queried.filter((run) => brushed.has(run.id)) : queried;
  }, [runs, query, brushed]);
  const groups = useMemo(() => groupProgress(runs ?? []), [runs]);
  const localIds = useMemo(() => new Set<string>((runs ?? []).map((run) => run.id)), [runs]);
  const sort = (key: RunSortKey) =>
    setQuery((q) => ({ ...q, sort: key, descending: q.sort === key ? !q.descending : true }));
  const pickedSet = useMemo(() => new Set(picked), [picked]);
  const pickedRuns = useMemo(
    () => (runs ?? []).filter((r) => pickedSet.has(r.id)),
    [runs, pickedSet],
  );
  const scroller = useRef<HTMLElement>(null);
  const body = useRef<HTMLTableSectionElement>(null);
  const view = useVirtualRows(scroller, body, shown.length);
  // Each run's filter text is made a slice at a time in the background, so the first filter
  // typed over thousands of runs does not make them all at once.
  useEffect(() => {
    if (!runs) return;
    let from = 0;
    let timer = setTimeout(function slice() {
      makeFilterTexts(runs, from, from + FILTER_TEXT_SLICE);
      from += FILTER_TEXT_SLICE;
      if (from < runs.length) timer = setTimeout(slice, 0);
    }, 0);
    return () => clearTimeout(timer);
  }, [runs]);
  // A new sort or filter shows its first rows.
  useEffect(() => {
    if (scroller.current) scroller.current.scrollTop = 0;
  }, [query]);

  return (
    <section className="fb-runs" ref={scroller}>
      <RunsToolbar
        runs={runs ?? []}
        query={query}
        onQuery={setQuery}
        picked={pickedRuns}
        onDeleted={() => store.getState().setPicked([])}
      />
      <StorageStatus />
      <CacheStatus />
      <ConnectBar />
      <p className="fb-muted fb-runs-count" role="status" aria-label="Run count">
        {describeCount(
          runs?.length ?? 0,
          shown.length,
          query.status !== 'all' || query.text.trim() !== '' || brushed !== null,
        )}
      </p>
      <table aria-label="Runs">
        <thead>
          <tr>
            <th scope="col">
              <PickAllShown shown={shown} picked={pickedSet} />
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
        <RemoteRows localIds={localIds} />
        <tbody ref={body}>
          {runs?.length === 0 && (
            <tr>
              <td colSpan={10} className="fb-muted">
                No runs yet: press Run.
              </td>
            </tr>
          )}
          {view.before > 0 && <tr aria-hidden="true" style={{ height: view.before }} />}
          {shown.slice(view.first, view.last).map((run, i) => {
            const group = run.groupId ? groups.get(run.groupId) : undefined;
            const stoppedBecause = run.status === 'running' ? stopping[run.id] : undefined;
            return (
              <tr
                key={run.id}
                data-index={view.first + i}
                aria-selected={run.id === selected}
                onClick={() => {
                  remote.select(null);
                  store.getState().selectRun(run.id);
                }}
                className={`fb-run-row fb-run-${run.status}`}
              >
                <td onClick={(e) => e.stopPropagation()}>
                  <input
                    type="checkbox"
                    aria-label={`Pick run ${shortId(run.id)}`}
                    checked={pickedSet.has(run.id)}
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
                <td>{run.backend}</td>
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
          {view.after > 0 && <tr aria-hidden="true" style={{ height: view.after }} />}
        </tbody>
      </table>
    </section>
  );
}
