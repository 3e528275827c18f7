/**
 * The device pool as the selected run's programs see it: the budget, the
 * resident models, reserved bytes by what they hold (a loop's weights and
 * optimizer state, its dataset kept on the device), in-use bytes, what other
 * tabs booked of the same budget (every tab of the browser admits against
 * one), each request's steps done / total and steps per second, and who
 * waits for what. Live while the run runs (the engine's `pool` events);
 * afterwards, the last tick it saw.
 */
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { formatBytes } from '../../core/programs/pool';
import type { RequestProgress } from '../../core/programs';
import type { RunRow } from '../../core/run/record';
import type { PoolEvent } from '../../../workers/protocol';
import { useEngine } from '../engine/EngineContext';
import { useEditorStore } from '../store/context';
import { usePoolReports } from './pool-reports';
import './programs.css';
import './runs.css';

function describeRequest(r: RequestProgress): string {
  if (r.state === 'ok' || r.state === 'error' || r.state === 'cancelled') return r.state;
  if (r.step === null) return r.state;
  const rate = r.unitsPerSecond === null ? '' : ` · ${r.unitsPerSecond.toFixed(1)} steps/s`;
  return `${r.state} · ${r.step} ${r.unitsDone}/${r.units}${rate}`;
}

function NodePool({ report }: { report: PoolEvent }) {
  const { pool } = report;
  // Each loop's reservation by its share: weights and optimizer state, a dataset kept on the device.
  const reservations = pool.holds.filter((h) => h.kind === 'state');
  return (
    <article aria-label={`Pool of ${report.node}`} className="fb-pool-node">
      <h4>
        {report.node} on {report.backend}
        {report.final ? ' (ended)' : ` · tick ${report.tick}`}
      </h4>
      <dl className="fb-facts">
        <dt>Budget</dt>
        <dd data-testid="pool-budget">{formatBytes(pool.budget)}</dd>
        <dt>Resident models</dt>
        <dd>
          {formatBytes(pool.models)}
          {pool.residentModels.length > 0 &&
            ` (${pool.residentModels.map((m) => `${m.name} ${formatBytes(m.bytes)}`).join(', ')})`}
        </dd>
        <dt>Reserved</dt>
        <dd>
          {formatBytes(pool.reserved)}
          {reservations.length > 0 &&
            ` (${reservations.map((h) => `${h.label} ${formatBytes(h.bytes)}`).join('; ')})`}
        </dd>
        <dt>In use</dt>
        <dd>{formatBytes(pool.inUse)}</dd>
        <dt>Other tabs</dt>
        <dd>{formatBytes(pool.others)}</dd>
        <dt>Free</dt>
        <dd>{formatBytes(pool.free)}</dd>
      </dl>
      {pool.otherBookings.length > 0 && <p className="fb-muted">Booked by other tabs:</p>}
      {pool.otherBookings.length > 0 && (
        <ul aria-label="Booked by other tabs" className="fb-pool-others">
          {pool.otherBookings.map((b, i) => (
            <li key={i}>
              <code>{b.holder}</code> {formatBytes(b.bytes)}: {b.label}
              {b.run !== null && (
                <span className="fb-muted">
                  {' '}
                  (run {b.run.slice(0, 8)}
                  {b.node !== null && `, node ${b.node}`})
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
      <ul aria-label={`Requests of ${report.node}`} className="fb-pool-requests">
        {report.requests.map((r) => (
          <li key={r.request}>
            <code>{r.request}</code> {describeRequest(r)}
          </li>
        ))}
      </ul>
      {pool.waiting.length > 0 && (
        <ul aria-label={`Waiting in ${report.node}`} className="fb-pool-waiting">
          {pool.waiting.map((w) => (
            <li key={w.holder}>
              <code>{w.holder}</code> waits: {w.label} (holds {formatBytes(w.holding)})
            </li>
          ))}
        </ul>
      )}
    </article>
  );
}

/** Set the budget of one backend's pool; empty goes back to the default. */
function BudgetSetting({ backend }: { backend: PoolEvent['backend'] }) {
  const engine = useEngine();
  const store = useEditorStore();
  const queries = useQueryClient();
  const budgets = useQuery({
    queryKey: ['pool-budgets'],
    queryFn: () => engine.call('poolBudgets', {}),
  });
  const [text, setText] = useState('');
  const current = budgets.data?.find((b) => b.backend === backend);
  const apply = async () => {
    const mb = text.trim() === '' ? null : Number(text);
    try {
      const result = await engine.call('poolBudgets', {
        backend,
        bytes: mb === null ? null : mb * 1e6,
      });
      queries.setQueryData(['pool-budgets'], result);
      setText('');
    } catch (error) {
      store.getState().alert(error instanceof Error ? error.message : String(error));
    }
  };
  return (
    <form
      className="fb-pool-budget"
      aria-label="Pool budget"
      onSubmit={(event) => {
        event.preventDefault();
        void apply();
      }}
    >
      <label>
        {backend} budget (MB)
        <input
          type="number"
          min={0}
          step="any"
          value={text}
          placeholder={current ? String(Number((current.bytes / 1e6).toPrecision(3))) : ''}
          onChange={(event) => setText(event.target.value)}
        />
      </label>
      <button type="submit">Set budget</button>
      {current && <span className="fb-muted">{current.source}; applies to the next programs</span>}
    </form>
  );
}

export function PoolPanel({ run }: { run: RunRow }) {
  const reports = usePoolReports(run.id);
  if (reports.length === 0) return null;
  return (
    <section aria-label="Device pool" className="fb-pool">
      <h3>Device pool</h3>
      {reports.map((report) => (
        <NodePool key={report.node} report={report} />
      ))}
      <BudgetSetting backend={reports[0]!.backend} />
    </section>
  );
}
