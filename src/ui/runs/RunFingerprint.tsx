/**
 * What the selected run ran on: its fingerprint's facts (app build,
 * onnxruntime-web, backend, adapter, browser, machine, cross-origin
 * isolation), the WebGPU features and limits folded below them.
 */
import { fingerprintFacts, type FingerprintFact } from '../../core/run/fingerprint';
import type { RunRow } from '../../core/run/record';
import './run-record.css';

function Facts({ facts }: { facts: readonly FingerprintFact[] }) {
  return (
    <dl className="fb-facts">
      {facts.map((fact) => (
        <div key={fact.key} className="fb-fact">
          <dt>{fact.label}</dt>
          <dd>{fact.value}</dd>
        </div>
      ))}
    </dl>
  );
}

export function RunFingerprint({ run }: { run: RunRow }) {
  const facts = run.fingerprint ? fingerprintFacts(run.fingerprint) : [];
  const details = facts.filter((f) => f.detail);
  return (
    <section aria-label="Fingerprint" className="fb-run-part">
      <h3>Fingerprint</h3>
      {run.fingerprint ? (
        <>
          <Facts facts={facts.filter((f) => !f.detail)} />
          {details.length > 0 && (
            <details>
              <summary>WebGPU features and limits</summary>
              <Facts facts={details} />
            </details>
          )}
        </>
      ) : (
        <p className="fb-muted">
          {run.status === 'queued'
            ? 'Recorded when an engine takes the run.'
            : 'Not recorded: this run ran before Flowbench recorded what runs ran on.'}
        </p>
      )}
    </section>
  );
}
