/** The flow library: every saved flow; open, rename, duplicate or delete one. */
import { useRef, useState } from 'react';
import type { FlowId } from '../../core/run/record';
import { deleteFlow, listFlows } from '../../db/flows';
import { live } from '../../db/live';
import type { FlowRow } from '../../db/schema';
import { db } from '../db';
import { useLive } from '../live';
import { addAndOpen, openLibraryFlow, restoreSession } from '../library';
import { useEditor, useEditorStore } from '../store/context';
import { edits } from '../store/editor';
import { ConflictAlert } from './ConflictAlert';
import './panels.css';

/** A name like `spirals-mlp copy`, `spirals-mlp copy 2`, … not yet in the library. */
function copyName(name: string, taken: readonly string[]): string {
  let candidate = `${name} copy`;
  for (let i = 2; taken.includes(candidate); i++) candidate = `${name} copy ${i}`;
  return candidate;
}

export function FlowsList() {
  const store = useEditorStore();
  const openId = useEditor((s) => s.flowId);
  const flows = useLive(() => live(() => listFlows(db)), []);
  const [renaming, setRenaming] = useState<FlowId | null>(null);
  const [doomed, setDoomed] = useState<FlowRow | null>(null);
  const confirm = useRef<HTMLDialogElement>(null);

  /** A library action; a write the browser refuses (a full quota …) says so instead of passing unseen. */
  const act = (what: string, action: () => Promise<unknown>) => {
    action().catch((error: unknown) => store.getState().alertError(error, `Could not ${what}: `));
  };

  const rename = (row: FlowRow, name: string) => {
    setRenaming(null);
    const trimmed = name.trim();
    if (trimmed === '' || trimmed === row.name) return;
    if (row.id !== openId)
      act(`rename ${row.name}`, () =>
        openLibraryFlow(store, row.id).then(() => rename(row, trimmed)),
      );
    else store.getState().changeDoc(edits.rename(trimmed));
  };

  const remove = async () => {
    confirm.current?.close();
    if (!doomed) return;
    await deleteFlow(db, doomed.id);
    if (doomed.id === openId) await restoreSession(store);
    setDoomed(null);
  };

  return (
    <section className="fb-flows">
      <h2 id="flows-title">Flows</h2>
      <ConflictAlert />
      <ul aria-labelledby="flows-title">
        {flows?.map((flow) => (
          <li key={flow.id} className="fb-flow-item">
            {renaming === flow.id ? (
              <input
                aria-label={`New name for ${flow.name}`}
                defaultValue={flow.name}
                autoFocus
                onBlur={(e) => rename(flow, e.currentTarget.value)}
                onKeyDown={(e) => {
                  if (e.key === 'Enter') rename(flow, e.currentTarget.value);
                  if (e.key === 'Escape') setRenaming(null);
                }}
              />
            ) : (
              <button
                type="button"
                className="fb-flow-open"
                aria-current={flow.id === openId ? 'true' : undefined}
                onClick={() => act(`open ${flow.name}`, () => openLibraryFlow(store, flow.id))}
                onDoubleClick={() => setRenaming(flow.id)}
              >
                {flow.name}
              </button>
            )}
            <details className="fb-flow-menu">
              <summary aria-label={`Actions for ${flow.name}`}>⋯</summary>
              <button type="button" onClick={() => setRenaming(flow.id)}>
                Rename
              </button>
              <button
                type="button"
                onClick={() =>
                  act(`duplicate ${flow.name}`, () =>
                    addAndOpen(store, {
                      ...flow.doc,
                      name: copyName(
                        flow.name,
                        flows.map((f) => f.name),
                      ),
                    }),
                  )
                }
              >
                Duplicate
              </button>
              <button
                type="button"
                onClick={() => {
                  setDoomed(flow);
                  confirm.current?.showModal();
                }}
              >
                Delete
              </button>
            </details>
          </li>
        ))}
      </ul>
      <dialog ref={confirm} className="fb-dialog" aria-labelledby="delete-flow-title">
        <h2 id="delete-flow-title">Delete the flow {doomed?.name}?</h2>
        <p>Its runs stay in the Runs table: each keeps the flow as it ran.</p>
        <div className="fb-toolbar-group">
          <button
            type="button"
            className="fb-danger"
            onClick={() => act(`delete ${doomed?.name ?? 'the flow'}`, remove)}
          >
            Delete
          </button>
          <button type="button" onClick={() => confirm.current?.close()}>
            Keep it
          </button>
        </div>
      </dialog>
    </section>
  );
}
