/**
 * A file param in the inspector: pick a file, keep its bytes in the browser
 * (by digest) and its digest in the flow, and show what the file is — for a
 * `.onnx` model, its inputs and outputs with their shapes, or why it is not
 * a model.
 */
import type { FileParam } from '../../core/catalog/params';
import {
  describeValueInfo,
  readOnnxSignature,
  type OnnxSignature,
} from '../../core/onnx/signature';
import { formatBytes } from '../../core/programs/pool';
import { findStoredFile, storeFile } from '../../db/files';
import { live } from '../../db/live';
import { db } from '../db';
import { useLive } from '../live';
import { useEditorStore } from '../store/context';
import './panels.css';

type Described = { signature: OnnxSignature } | { problem: string } | null;

/** What the file is, for a model param (`.onnx`); other files are described by their node's own view. */
function describe(spec: FileParam, bytes: Uint8Array): Described {
  if (spec.accept !== '.onnx') return null;
  try {
    return { signature: readOnnxSignature(bytes) };
  } catch (error) {
    return { problem: error instanceof Error ? error.message : String(error) };
  }
}

function Signature({ signature }: { signature: OnnxSignature }) {
  const list = (label: string, infos: OnnxSignature['inputs']) => (
    <ul aria-label={label} className="fb-signature">
      {infos.map((info) => (
        <li key={info.name}>
          <code>{info.name}</code> {describeValueInfo(info)}
        </li>
      ))}
    </ul>
  );
  return (
    <>
      <small>Inputs</small>
      {list('Model inputs', signature.inputs)}
      <small>Outputs</small>
      {list('Model outputs', signature.outputs)}
    </>
  );
}

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
        return file ? { file, described: describe(spec, file.bytes) } : 'missing';
      }),
    [value, spec],
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
        <>
          <small data-testid="file-param-current">
            {stored.file.name} · {formatBytes(stored.file.size)} ·{' '}
            <code>{value.slice(0, 19)}…</code>
          </small>
          {stored.described === null ? null : 'signature' in stored.described ? (
            <Signature signature={stored.described.signature} />
          ) : (
            <small className="fb-invalid" role="alert">
              {stored.file.name}: {stored.described.problem}
            </small>
          )}
        </>
      )}
    </div>
  );
}
