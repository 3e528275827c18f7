/**
 * `Check parity` for a finished run: the engine runs the run's model programs
 * again, serially and interleaved, and this panel shows, per node, request,
 * output and metric, `identical` or where the two first differ.
 */
import { useState } from 'react';
import type { RunParity } from '../../core/programs/parity-summary';
import { finishedRunStatuses, type RunRow } from '../../core/run/record';
import { useEngine } from '../engine/EngineContext';
import './programs.css';
import './runs.css';

/** Where a run's parity check stands. */
export type ParityState =
  | { kind: 'idle' }
  | { kind: 'checking' }
  | { kind: 'done'; report: RunParity }
  | { kind: 'failed'; message: string };

function verdict(report: RunParity): string {
  if (report.identical) return 'Serial and interleaved: identical';
  if (report.status !== 'ok') return `Parity could not be checked: ${report.reason}`;
  if (report.nodes.length === 0) return `Nothing to compare: ${report.reason}`;
  return 'Serial and interleaved differ';
}

function ParityTable({ report }: { report: RunParity }) {
  return (
    <table aria-label="Parity" className="fb-parity">
      <thead>
        <tr>
          <th>Node</th>
          <th>Request</th>
          <th>What</th>
          <th>Serial vs interleaved</th>
        </tr>
      </thead>
      <tbody>
        {report.nodes.flatMap((node) =>
          node.lines.map((line) => (
            <tr
              key={`${node.node} ${line.request} ${line.kind} ${line.name}`}
              className={line.identical ? 'fb-same' : 'fb-differs'}
            >
              <td>{node.node}</td>
              <td>
                <code>{line.request}</code>
              </td>
              <td>
                {line.kind} <code>{line.name}</code>
              </td>
              <td>{line.identical ? 'identical' : line.detail}</td>
            </tr>
          )),
        )}
      </tbody>
    </table>
  );
}

export function ParityPanel({ run, state }: { run: RunRow; state: ParityState }) {
  if (state.kind === 'idle') return null;
  return (
    <section aria-label="Parity check" className="fb-parity-check">
      <h3>Parity of run {run.id.slice(-8)}</h3>
      {state.kind === 'checking' && (
        <p role="status">Running the programs serially, then interleaved…</p>
      )}
      {state.kind === 'failed' && <p role="alert">Parity check failed: {state.message}</p>}
      {state.kind === 'done' && (
        <>
          <p role="status" className={state.report.identical ? 'fb-same' : 'fb-differs'}>
            {verdict(state.report)} ({state.report.backend};{' '}
            {state.report.nodes.map((n) => `${n.node}: ${n.requests} request(s)`).join(', ')})
          </p>
          <ParityTable report={state.report} />
        </>
      )}
    </section>
  );
}

/** The `Check parity` button's state and action, per run. */
export function useParityCheck(run: RunRow) {
  const engine = useEngine();
  const [states, setStates] = useState<ReadonlyMap<string, ParityState>>(new Map());
  const state: ParityState = states.get(run.id) ?? { kind: 'idle' };
  const set = (id: string, next: ParityState) => setStates((m) => new Map(m).set(id, next));
  const check = async () => {
    const id = run.id;
    set(id, { kind: 'checking' });
    try {
      set(id, { kind: 'done', report: await engine.call('checkParity', { runId: id }) });
    } catch (error) {
      set(id, { kind: 'failed', message: error instanceof Error ? error.message : String(error) });
    }
  };
  const enabled = finishedRunStatuses.includes(run.status) && state.kind !== 'checking';
  return { state, check, enabled };
}
