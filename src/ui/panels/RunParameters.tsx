/** The `Run parameters` form: one labelled field per flow input, with its default. */
import type { FlowInput } from '../../core/flow/document';
import { planSweep } from '../../core/run/form';
import { useRunActions } from '../engine/actions';
import { useEditor, useEditorStore } from '../store/context';
import './panels.css';

function placeholder(input: FlowInput): string {
  return input.default === undefined ? 'required' : String(input.default);
}

export function RunParameters() {
  const store = useEditorStore();
  const doc = useEditor((s) => s.doc);
  const inputs = doc?.inputs ?? [];
  const typed = useEditor((s) => s.runParams);
  const { run, sweep } = useRunActions();
  const plan = doc ? planSweep(doc, typed) : [];
  const sweepSize = typeof plan === 'string' ? 0 : plan.length;
  return (
    <form
      className="fb-run-params"
      aria-label="Run parameters"
      onSubmit={(e) => {
        e.preventDefault();
        void run();
      }}
    >
      <h2>Run parameters</h2>
      {inputs.length === 0 && <p className="fb-muted">This flow declares no inputs.</p>}
      {inputs.map((input) => {
        const value =
          typed[input.name] ?? (input.default === undefined ? '' : String(input.default));
        const id = `param-${input.name}`;
        return (
          <div key={input.name} className="fb-field">
            <label htmlFor={id}>{input.name}</label>
            {input.type === 'boolean' ? (
              <select
                id={id}
                value={value}
                onChange={(e) => store.getState().setRunParam(input.name, e.currentTarget.value)}
              >
                <option value="true">true</option>
                <option value="false">false</option>
              </select>
            ) : (
              <input
                id={id}
                type="text"
                inputMode={input.type === 'string' ? 'text' : 'decimal'}
                placeholder={placeholder(input)}
                value={value}
                onChange={(e) => store.getState().setRunParam(input.name, e.currentTarget.value)}
              />
            )}
            <small className="fb-muted">
              {input.type}
              {input.min !== undefined ? ` ≥ ${input.min}` : ''}
              {input.max !== undefined ? ` ≤ ${input.max}` : ''}
              {input.description ? ` — ${input.description}` : ''}
            </small>
          </div>
        );
      })}
      <p className="fb-muted">
        A list (<code>0.01, 0.1</code>) or an integer range (<code>0..2</code>) in any field makes a
        sweep: one run per combination.
      </p>
      <button type="button" disabled={sweepSize < 2} onClick={() => void sweep()}>
        Run sweep{sweepSize >= 2 ? ` (${sweepSize} runs)` : ''}
      </button>
    </form>
  );
}
