/**
 * The selected run: what it ran with, how it ended, its live charts, its
 * nodes' timings, its artifacts and what it ran on; Export run and Re-run.
 */
import { lazy, Suspense } from 'react';
import { toRunExport } from '../../core/run/export';
import type { RunRow } from '../../core/run/record';
import { describeRunParams } from '../../core/run/run-list';
import { runValues } from '../../core/run/params';
import { readRunRecord } from '../../db/runs';
import { db } from '../db';
import { useRunActions } from '../engine/actions';
import { useEngine } from '../engine/EngineContext';
import { download, saveBlob } from '../files';
import { useEditor, useEditorStore } from '../store/context';
import { formatDuration, formatValue, shortId } from './format';
import { ParityPanel, useParityCheck } from './ParityPanel';
import { PoolPanel } from './PoolPanel';
import { NodeTimings } from './NodeTimings';
import { NodeTimeline } from '../analysis/NodeTimeline';
import { ParallelCoordinates } from '../analysis/ParallelCoordinates';
import { RerunComparison } from './RerunComparison';
import { RunArtifacts } from './RunArtifacts';
import { ConfusionMatrices } from './ConfusionMatrices';
import { RunFingerprint } from './RunFingerprint';
import { useSelectedRun } from './queries';
import { RemoteRunDetail } from '../remote/RemoteRunDetail';
import { useRemote } from '../remote/remote-store';
import './runs.css';

/**
 * The charts (uPlot and the series reads) load with the first selected run,
 * not with the editor: a person opening a flow does not wait for them.
 */
const ChartsPanel = lazy(() =>
  import('../charts/ChartsPanel').then((module) => ({ default: module.ChartsPanel })),
);

export function RunDetail() {
  const run = useSelectedRun();
  // A remote run is shown while no local one is selected (selecting either clears the other).
  const remoteRun = useRemote((s) => s.selected);
  if (!run && remoteRun) return <RemoteRunDetail runId={remoteRun} />;
  if (!run) return <section className="fb-run-detail fb-muted">Select a run to see it.</section>;
  return <SelectedRun run={run} />;
}

function SelectedRun({ run }: { run: RunRow }) {
  const store = useEditorStore();
  const { rerun } = useRunActions();
  const engine = useEngine();
  const parity = useParityCheck(run);
  const stopping = useEditor((s) => (run.status === 'running' ? s.stopping[run.id] : undefined));

  const exportRun = async () => {
    const record = await readRunRecord(db, run.id);
    if (!record) {
      store.getState().alert(`Run ${run.id} is no longer stored`);
      return;
    }
    download(`${run.id}.run.json`, toRunExport(record));
  };
  // Made in the engine worker: hashing and zipping a model or a table never holds the page.
  const exportBundle = async () => {
    try {
      saveBlob(`${run.id}.flowbench.zip`, await engine.call('exportRunBundle', { runId: run.id }));
    } catch (error) {
      store.getState().alertError(error, `Could not export the bundle of run ${run.id}: `);
    }
  };

  return (
    <section className="fb-run-detail" aria-label="Run">
      <header>
        <h2>
          Run <code title={run.id}>{shortId(run.id)}</code> · {run.flow}
        </h2>
        <div className="fb-toolbar-group">
          <button type="button" onClick={() => void exportRun()}>
            Export run
          </button>
          <button
            type="button"
            title="The run with its artifacts' bytes and the files its flow names, as one zip another browser can import and re-run"
            onClick={() => void exportBundle()}
          >
            Export bundle
          </button>
          <button type="button" onClick={() => void rerun(run)}>
            Re-run
          </button>
          <button
            type="button"
            disabled={!parity.enabled}
            title="Run this run's model programs serially and interleaved, and compare every output and metric bit for bit"
            onClick={() => void parity.check()}
          >
            Check parity
          </button>
        </div>
      </header>
      <dl className="fb-facts">
        <dt>Status</dt>
        <dd data-testid="run-status">{run.status}</dd>
        {stopping && (
          <>
            <dt>Reason</dt>
            <dd className="fb-invalid">
              Stopped: {stopping}. The run&apos;s ending is saved once storage has room again; until
              then it still reads running.
            </dd>
          </>
        )}
        {!stopping && run.statusReason && (
          <>
            <dt>Reason</dt>
            <dd className={run.status === 'error' ? 'fb-invalid' : undefined}>
              {run.statusReason}
            </dd>
          </>
        )}
        <dt>Engine</dt>
        <dd>
          {run.engine
            ? `${run.engine.backend} · adapter ${run.engine.adapter}`
            : `${run.backendChoice} (not started)`}
        </dd>
        <dt>Params</dt>
        <dd data-testid="run-params">
          <code>{describeRunParams(runValues(run))}</code>
        </dd>
        <dt>Duration</dt>
        <dd>{formatDuration(run.durationMs)}</dd>
        {Object.entries(run.result).map(([name, value]) => (
          <div key={name} className="fb-fact">
            <dt>{name}</dt>
            <dd>{formatValue(value)}</dd>
          </div>
        ))}
      </dl>
      <RerunComparison run={run} />
      <Suspense fallback={<p className="fb-muted">Loading charts…</p>}>
        <ChartsPanel run={run} />
      </Suspense>
      <ParallelCoordinates run={run} />
      <NodeTimeline run={run} />
      <NodeTimings run={run} />
      <ConfusionMatrices run={run} />
      <RunArtifacts run={run} />
      <RunFingerprint run={run} />
      <ParityPanel run={run} state={parity.state} />
      <PoolPanel run={run} />
    </section>
  );
}
