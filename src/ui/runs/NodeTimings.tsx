/**
 * When each node of the selected run started and how long it took: one row
 * per node, in the order they started, the start counted from the run's.
 */
import type { RunNodeRow, RunRow } from '../../core/run/record';
import { formatDuration, formatTime } from './format';
import { useRunNodes } from './queries';
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
  return a.node.localeCompare(b.node);
}

export function NodeTimings({ run }: { run: RunRow }) {
  const nodes = useRunNodes(run.id);
  if (!nodes || nodes.length === 0) return null;
  const labels = new Map(run.flowSnapshot.nodes.map((n) => [n.id, n.label ?? n.kind]));
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
        <tbody>
          {[...nodes].sort(byStart).map((node) => (
            <tr key={node.node}>
              <th scope="row" title={labels.get(node.node)}>
                {node.node}
              </th>
              <td>{node.status}</td>
              <td title={node.startedAt ? formatTime(node.startedAt) : undefined}>
                {startOffset(run, node)}
              </td>
              <td>{formatDuration(node.durationMs)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
