/**
 * The selected remote run's panel: what it is and where it runs, Import, and
 * its charts: live while it runs, from its run file once it finished. The
 * series are held in memory only; import the run to keep it.
 */
import { lazy, Suspense, useEffect } from 'react';
import { shortId } from '../runs/format';
import { remote, useRemote } from './remote-store';
import { describeRemoteParams, isImportable, isLive, remoteStatus } from './remote-words';
import { useImportRemote } from './RemoteRows';
import './remote.css';

/** uPlot loads with the first chart, as for local runs. */
const RemoteCharts = lazy(() =>
  import('./RemoteCharts').then((module) => ({ default: module.RemoteCharts })),
);

export function RemoteRunDetail({ runId }: { runId: string }) {
  const run = useRemote((s) => s.runs.find((r) => r.runId === runId));
  const server = useRemote((s) => s.server);
  const live = useRemote((s) => s.live[runId]);
  const importRun = useImportRemote();
  const following = run !== undefined && isLive(run);
  const finished = run !== undefined && isImportable(run);
  useEffect(() => (following ? remote.follow(runId) : undefined), [runId, following]);
  useEffect(() => {
    if (finished) void remote.load(runId);
  }, [runId, finished]);
  if (!run || !server)
    return <section className="fb-run-detail fb-muted">Select a run to see it.</section>;

  return (
    <section className="fb-run-detail" aria-label="Run">
      <header>
        <h2>
          Run <code title={run.runId}>{shortId(run.runId)}</code> · {run.flow}{' '}
          <span className="fb-remote-badge">remote</span>
        </h2>
        <div className="fb-toolbar-group">
          <button
            type="button"
            disabled={!isImportable(run)}
            title="Store this run in this browser, as an imported run file"
            onClick={() => void importRun(run)}
          >
            Import
          </button>
        </div>
      </header>
      <p className="fb-muted" data-testid="run-params">
        {remoteStatus(run)} on {server.url} · {describeRemoteParams(run)}
        {run.attempts > 1 ? ` · ${run.attempts} attempts` : ''}
      </p>
      {live?.error ? <p role="alert">{live.error}</p> : null}
      {live || following || finished ? (
        // Loaded as soon as a live run is shown, so its first values find the charts ready.
        <Suspense fallback={<p className="fb-muted">Loading charts…</p>}>
          <RemoteCharts run={run} live={live} />
        </Suspense>
      ) : (
        <p className="fb-muted">The server holds no run file of it: there is nothing to chart.</p>
      )}
    </section>
  );
}
