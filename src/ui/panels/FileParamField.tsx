/**
 * A file param in the inspector: pick a file, keep its bytes in the browser
 * (by digest) and its digest in the flow, and show which file it is. The
 * engine worker reads, hashes and stores the file and says its name and size:
 * a table of tens of megabytes never passes through the page's thread. What
 * the file holds is shown by its node's own view, read by the engine (a
 * model's card, a table's columns).
 */
import { useState } from 'react';
import type { FileParam } from '../../core/catalog/params';
import { formatBytes } from '../../core/programs/pool';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEngine } from '../engine/EngineContext';
import { useEditorStore } from '../store/context';
import { keepFile } from '../store/file-keeps';
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
  const engine = useEngine();
  const queries = useQueryClient();
  // `undefined` until read, `null` when no file is named, `'missing'` when this browser lacks it.
  const info = useQuery({
    queryKey: ['stored-file', value],
    queryFn: async () => (await engine.call('describeFile', { digest: value })) ?? 'missing',
    enabled: value !== '',
    staleTime: Infinity,
  });
  const stored = value === '' ? null : info.data;
  const [keeping, setKeeping] = useState<string | null>(null);
  const keep = async (file: File) => {
    setKeeping(file.name);
    try {
      const { digest } = await engine.call('storeFile', { file });
      // Picked again after it went missing: it is here now.
      await queries.invalidateQueries({ queryKey: ['stored-file', digest] });
      onChange(digest);
    } catch (error) {
      store.getState().alertError(error, `Could not keep ${file.name}: `);
    } finally {
      setKeeping(null);
    }
  };
  // A Run pressed while the file is kept waits for it (file-keeps.ts).
  const pick = (file: File | undefined) => file && keepFile(keep(file));
  return (
    <div className="fb-field">
      <label htmlFor={id}>{name}</label>
      <input
        id={id}
        type="file"
        accept={spec.accept}
        onChange={(e) => void pick(e.currentTarget.files?.[0])}
      />
      {keeping !== null ? (
        <small className="fb-muted" role="status">
          Keeping {keeping}…
        </small>
      ) : value === '' ? (
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
