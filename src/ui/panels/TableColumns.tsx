/**
 * The table node's file, as the engine read it: its columns with their
 * types and missing counts, its first rows, and pickers for the label and
 * the features that write the node's `label` and `features` params. The
 * page never parses the file: it asks the engine (`describeTable`), which
 * reads it exactly as the node will, so a file that will not parse says so
 * here, before a run.
 */
import { useQuery } from '@tanstack/react-query';
import { splitNames, type HeaderChoice, type TablePreview } from '../../core/tables';
import { useEngine } from '../engine/EngineContext';
import './panels.css';

function ColumnsTable({ preview }: { preview: TablePreview }) {
  return (
    <table className="fb-table-columns" aria-label="Table columns">
      <thead>
        <tr>
          <th scope="col">Column</th>
          <th scope="col">Type</th>
          <th scope="col">Missing</th>
        </tr>
      </thead>
      <tbody>
        {preview.columns.map((c) => (
          <tr key={c.name}>
            <th scope="row">{c.name}</th>
            <td>{c.type}</td>
            <td>{c.missing}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function RowsTable({ preview }: { preview: TablePreview }) {
  return (
    <div className="fb-table-preview">
      <table aria-label="Table preview">
        <thead>
          <tr>
            {preview.columns.map((c) => (
              <th key={c.name} scope="col">
                {c.name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {preview.rows.map((row, r) => (
            <tr key={r}>
              {row.map((cell, c) => (
                <td key={c}>{cell}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function TableColumns({
  digest,
  header,
  label,
  features,
  onSetParam,
}: {
  digest: string;
  header: HeaderChoice;
  label: string;
  features: string;
  onSetParam: (name: 'label' | 'features', value: string) => void;
}) {
  const engine = useEngine();
  const query = useQuery({
    queryKey: ['table-preview', digest, header],
    queryFn: () => engine.call('describeTable', { digest, header }),
    staleTime: Infinity,
    retry: false,
  });
  if (query.isPending) return <p className="fb-muted">Reading the table…</p>;
  if (query.isError)
    return (
      <p className="fb-invalid" role="alert">
        {query.error.message}
      </p>
    );
  const preview = query.data;
  const chosenLabel = label.trim() === '' ? preview.defaultLabel : label.trim();
  const chosen = splitNames(features);
  const inUse = new Set(chosen.length > 0 ? chosen : preview.defaultFeatures);
  const toggle = (name: string, on: boolean) => {
    const next = preview.columns
      .map((c) => c.name)
      .filter((n) => (n === name ? on : inUse.has(n)) && n !== chosenLabel);
    onSetParam('features', next.join(', '));
  };
  return (
    <div className="fb-table">
      <small>
        {preview.rowCount} rows × {preview.columns.length} columns ({preview.format})
      </small>
      <ColumnsTable preview={preview} />
      <RowsTable preview={preview} />
      <div className="fb-field">
        <label htmlFor="node-param-label">label</label>
        <select
          id="node-param-label"
          value={label.trim()}
          onChange={(e) => onSetParam('label', e.currentTarget.value)}
        >
          <option value="">auto ({preview.defaultLabel})</option>
          {preview.columns.map((c) => (
            <option key={c.name} value={c.name}>
              {c.name}
            </option>
          ))}
        </select>
        <small className="fb-muted">The column to predict.</small>
      </div>
      <fieldset className="fb-field">
        <legend>features</legend>
        {preview.columns.map((c) => (
          <label key={c.name} className="fb-check">
            <input
              type="checkbox"
              disabled={c.name === chosenLabel}
              checked={c.name !== chosenLabel && inUse.has(c.name)}
              onChange={(e) => toggle(c.name, e.currentTarget.checked)}
            />{' '}
            {c.name}
          </label>
        ))}
        <small className="fb-muted">
          {chosen.length > 0
            ? 'Chosen columns.'
            : 'None chosen: every usable column but the label.'}
        </small>
      </fieldset>
    </div>
  );
}
