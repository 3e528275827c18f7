/**
 * A file param in the inspector: pick a file, keep its bytes in the browser
 * (by digest) and its digest in the flow, and show which file it is. What
 * the file holds is shown by its node's own view, read by the engine (a
 * model's card, a table's columns).
 */
import type { FileParam } from '../../core/catalog/params';
import { formatBytes } from '../../core/programs/pool';
import { findStoredFile, storeFile } from '../../db/files';
import { live } from '../../db/live';
import { db } from '../db';
import { useLive } from '../live';
import { useEditorStore } from '../store/context';
import './panels.css';

export function FileParamField({
  id,
  name,
  spec,
  value,
  onChange,
}: {
  id: string;
  name: string;
  spec: FileParam;
  value: string;
  onChange: (value: string) => void;
}) {
  const store = useEditorStore();
  // `undefined` until read, `null` when no file is named, `'missing'` when this browser lacks it.
  const stored = useLive(
    () =>
      live(async () => {
        if (value === '') return null;
        const file = await findStoredFile(db, value);
        return file ?? 'missing';
      }),
    [value],
  );
  const pick = async (file: File | undefined) => {
    if (!file) return;
    try {
      const bytes = new Uint8Array(await file.arrayBuffer());
      onChange(await storeFile(db, file.name, bytes, file.type || 'application/octet-stream'));
    } catch (error) {
      store.getState().alert(`Could not keep ${file.name}: ${String(error)}`);
    }
  };
  return (
    <div className="fb-field">
      <label htmlFor={id}>{name}</label>
      <input
        id={id}
        type="file"
        accept={spec.accept}
        onChange={(e) => void pick(e.currentTarget.files?.[0])}
      />
      {value === '' ? (
        <small className="fb-muted">{spec.description}</small>
      ) : stored === 'missing' ? (
        <small className="fb-invalid" role="alert">
          The file {value.slice(0, 19)}… is not stored in this browser: pick it again.
        </small>
      ) : !stored ? null : (
        <small data-testid="file-param-current">
          {stored.name} · {formatBytes(stored.size)} · <code>{value.slice(0, 19)}…</code>
        </small>
      )}
    </div>
  );
}
