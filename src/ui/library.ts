/**
 * Opening flows: the library's first flow on a first visit, the flow that was
 * open before a reload, an example, an imported file. Also the autosave that
 * writes the open document back on every change.
 */
import { useEffect } from 'react';
import { backendChoices, type BackendChoice } from '../core/engine/runtime';
import type { FlowDocument } from '../core/flow/document';
import { describeIssues, type FlowIssue } from '../core/flow/issues';
import { parseFlow, validateFlow } from '../core/flow/validate';
import { builtinCatalog } from '../core/nodes';
import { fromRunExport, RUN_FORMAT } from '../core/run/export';
import type { FlowId, RunId } from '../core/run/record';
import { createFlow, getSetting, saveFlow, setSetting } from '../db/flows';
import { importRunRecord } from '../db/runs';
import { db } from './db';
import { defaultExample } from './examples';
import { useEditorStore } from './store/context';
import type { EditorStore } from './store/editor';

const OPEN_FLOW = 'openFlow';
export const BACKEND = 'backend';
const AUTOSAVE_MS = 250;

/** Open a library flow in the editor and remember it across reloads. */
export async function openLibraryFlow(store: EditorStore, id: FlowId): Promise<void> {
  const row = await db.flows.get(id);
  if (!row) return;
  store.getState().openFlow(row.id, row.doc);
  await setSetting(db, OPEN_FLOW, row.id);
  const latest = await db.runs.where('flowId').equals(row.id).last();
  if (latest) store.getState().selectRun(latest.id);
}

/** Add a document to the library as a new flow and open it. */
export async function addAndOpen(store: EditorStore, doc: FlowDocument): Promise<void> {
  const row = await createFlow(db, structuredClone(doc));
  await openLibraryFlow(store, row.id);
}

/** On start-up: reopen the flow that was open, or put the default example on the canvas. */
export async function restoreSession(store: EditorStore): Promise<void> {
  const backend = await getSetting<BackendChoice>(db, BACKEND);
  if (backend && backendChoices.includes(backend)) store.getState().setBackend(backend);
  const open = await getSetting<FlowId>(db, OPEN_FLOW);
  if (open && (await db.flows.get(open))) return openLibraryFlow(store, open);
  const any = await db.flows.orderBy('updatedAt').last();
  if (any) return openLibraryFlow(store, any.id);
  await addAndOpen(store, defaultExample());
}

/** Autosave the open flow, debounced, whenever its document changes. */
export function useAutosave(): void {
  const store = useEditorStore();
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const unsubscribe = store.subscribe((state, previous) => {
      if (state.revision === previous.revision || !state.flowId || !state.doc) return;
      const { flowId, doc } = state;
      clearTimeout(timer);
      timer = setTimeout(() => {
        saveFlow(db, flowId, doc).catch((error: unknown) =>
          store.getState().alert(`Could not save the flow: ${String(error)}`),
        );
      }, AUTOSAVE_MS);
    });
    return () => {
      clearTimeout(timer);
      unsubscribe();
    };
  }, [store]);
}

export class ImportError extends Error {
  readonly code = 'bad-import';
  override name = 'ImportError';
}

function refuse(file: string, what: string, issues: readonly FlowIssue[]): never {
  throw new ImportError(`${file} is not a valid ${what}:\n${describeIssues(issues)}`);
}

/**
 * Import a parsed file: a flow becomes a new library flow, a run joins the
 * runs table. Anything malformed is refused whole with the JSON path at fault.
 */
export async function importDocument(
  store: EditorStore,
  file: string,
  value: unknown,
): Promise<{ flow?: FlowId; run?: RunId }> {
  const format =
    typeof value === 'object' && value !== null
      ? (value as { format?: unknown }).format
      : undefined;
  if (format === RUN_FORMAT) {
    const parsed = fromRunExport(value);
    if (!parsed.ok) refuse(file, 'run file', parsed.issues);
    await importRunRecord(db, parsed.record);
    store.getState().selectRun(parsed.record.run.id);
    return { run: parsed.record.run.id };
  }
  const parsed = parseFlow(value);
  if (!parsed.ok) {
    if (typeof format === 'string' && format !== 'flowbench.flow/1')
      throw new ImportError(
        `${file} has format "${format}"; Flowbench imports "flowbench.flow/1" and "${RUN_FORMAT}" files`,
      );
    refuse(file, 'flow file', parsed.issues);
  }
  const issues = validateFlow(parsed.flow, builtinCatalog);
  if (issues.length > 0) refuse(file, 'flow', issues);
  await addAndOpen(store, parsed.flow);
  return { flow: store.getState().flowId ?? undefined };
}
