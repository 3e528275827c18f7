/** The `Runs` table: one row per run, newest first; clicking a row selects it. */
import { useEditor, useEditorStore } from '../store/context';
import { formatDuration, formatTime, formatValue, shortId } from './format';
import { useRuns } from './queries';

export function RunsTable() {
  const store = useEditorStore();
  const runs = useRuns();
  const selected = useEditor((s) => s.selectedRun);
  return (
    <section className="fb-runs">
      <table aria-label="Runs">
        <thead>
          <tr>
            <th scope="col">Run</th>
            <th scope="col">Flow</th>
            <th scope="col">Status</th>
            <th scope="col">Backend</th>
            <th scope="col">Started</th>
            <th scope="col">Duration</th>
            <th scope="col">Result</th>
          </tr>
        </thead>
        <tbody>
          {runs?.length === 0 && (
            <tr>
              <td colSpan={7} className="fb-muted">
                No runs yet: press Run.
              </td>
            </tr>
          )}
          {runs?.map((run) => (
            <tr
              key={run.id}
              aria-selected={run.id === selected}
              onClick={() => store.getState().selectRun(run.id)}
              className={`fb-run-row fb-run-${run.status}`}
            >
              <td title={run.id}>
                <code>{shortId(run.id)}</code>
              </td>
              <td>{run.flow}</td>
              <td>{run.status}</td>
              <td>{run.engine?.backend ?? run.backendChoice}</td>
              <td>{formatTime(run.startedAt)}</td>
              <td>{formatDuration(run.durationMs)}</td>
              <td>
                {Object.entries(run.result)
                  .map(([k, v]) => `${k} ${formatValue(v)}`)
                  .join(', ')}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
