/**
 * When each node of the selected run started and how long it took: one row
 * per node, in the order they started, the start counted from the run's.
 * Only the rows in view of the run panel are in the page (`virtual-rows.ts`),
 * so a run of a thousand nodes updates its table as fast as one of ten.
 */
import { useLayoutEffect, useMemo, useRef } from 'react';
import type { RunNodeRow, RunRow } from '../../core/run/record';
import { formatDuration, formatTime, shortId } from './format';
import { useRunNodes } from './queries';
import { useVirtualRows } from './virtual-rows';
import './run-record.css';

/** `+1.2 s` after the run started, or `—` for a node that never started. */
function startOffset(run: RunRow, node: RunNodeRow): string {
  if (!node.startedAt || !run.startedAt) return '—';
  const ms = Date.parse(node.startedAt) - Date.parse(run.startedAt);
  return Number.isFinite(ms) ? `+${formatDuration(Math.max(0, ms))}` : '—';
}

/** Started nodes by start time, then the rest by id. */
function byStart(a: RunNodeRow, b: RunNodeRow): number {
  if (a.startedAt && b.startedAt && a.startedAt !== b.startedAt)
    return a.startedAt < b.startedAt ? -1 : 1;
  if (a.startedAt && !b.startedAt) return -1;
  if (!a.startedAt && b.startedAt) return 1;
  return a.node < b.node ? -1 : a.node > b.node ? 1 : 0;
}

export function NodeTimings({ run }: { run: RunRow }) {
  const nodes = useRunNodes(run.id);
  const sorted = useMemo(() => [...(nodes ?? [])].sort(byStart), [nodes]);
  const labels = useMemo(
    () => new Map(run.flowSnapshot.nodes.map((n) => [n.id, n.label ?? n.kind])),
    [run.flowSnapshot],
  );
  const body = useRef<HTMLTableSectionElement>(null);
  // The run panel scrolls, not the table: found once the table is in the page.
  const scroller = useRef<HTMLElement | null>(null);
  useLayoutEffect(() => {
    scroller.current = body.current?.closest<HTMLElement>('.fb-run-detail') ?? null;
  });
  // Below the run's facts and charts, mostly out of view: measured before more rows are drawn.
  const view = useVirtualRows(scroller, body, sorted.length, 0);
  if (sorted.length === 0) return null;
  return (
    <section className="fb-run-part">
      <h3>Nodes</h3>
      <table aria-label="Node timings" className="fb-run-table">
        <thead>
          <tr>
            <th scope="col">Node</th>
            <th scope="col">Status</th>
            <th scope="col">Start</th>
            <th scope="col">Duration</th>
          </tr>
        </thead>
        <tbody ref={body}>
          {view.before > 0 && <tr aria-hidden="true" style={{ height: view.before }} />}
          {sorted.slice(view.first, view.last).map((node, i) => (
            <tr key={node.node} data-index={view.first + i}>
              <th scope="row" title={labels.get(node.node)}>
                {node.node}
              </th>
              <td>
                {node.status}
                {node.cachedFrom && (
                  <span
                    className="fb-muted"
                    title={`From the cache: computed by run ${node.cachedFrom.runId}`}
                  >
                    {' '}
                    from {shortId(node.cachedFrom.runId)}
                  </span>
                )}
              </td>
              <td title={node.startedAt ? formatTime(node.startedAt) : undefined}>
                {startOffset(run, node)}
              </td>
              <td>{formatDuration(node.durationMs)}</td>
            </tr>
          ))}
          {view.after > 0 && <tr aria-hidden="true" style={{ height: view.after }} />}
        </tbody>
      </table>
    </section>
  );
}
