/**
 * Opening flows: the library's first flow on a first visit, the flow that was
 * open before a reload, an example, an imported file. Also the autosave that
 * writes the open document back on every change: debounced while the person
 * types, and at once when the page is hidden or closed.
 */
import { useEffect } from 'react';
import { flowFormats, type FlowDocument } from '../core/flow/document';
import { parseFlow, validateFlow } from '../core/flow/validate';
import { builtinCatalog } from '../core/nodes';
import { reviveError } from '../core/errors';
import { canonicalJson } from '../core/run/digest';
import { RUN_FORMAT } from '../core/run/export';
import { formatOf, importRefused, refuseImport } from '../core/run/import-file';
import type { FlowId, RunId } from '../core/run/record';
import { storeFile } from '../db/files';
import { createFlow, firstFlow, getFlow, saveFlowOver } from '../db/flows';
import type { FlowRow } from '../db/schema';
import {
  dropUnsavedEdit,
  readSetting,
  stashUnsavedEdit,
  takeUnsavedEdit,
  writeSetting,
  type UnsavedEdit,
} from '../db/settings';
import { live } from '../db/live';
import { latestRunOfFlow } from '../db/runs';
import { db } from './db';
import type { EngineClient } from './engine/client';
import { defaultExample, type Example } from './examples';
import { useEditorStore } from './store/context';
import type { EditorStore } from './store/editor';

const AUTOSAVE_MS = 250;

/** Open a library flow in the editor and remember it across reloads. */
export async function openLibraryFlow(store: EditorStore, id: FlowId): Promise<void> {
  const row = await getFlow(db, id);
  if (!row) return;
  // Remembered before it shows as open: a reload right after the Flows list
  // marks it current reopens it, not the flow open before. A disk too full
  // to remember it does not keep it shut: it opens, and the person is told.
  await writeSetting(db, 'openFlow', row.id).catch((error: unknown) =>
    store
      .getState()
      .alert(
        `${row.doc.name} is open, but could not be remembered for the next visit: ${String(error)}`,
      ),
  );
  store.getState().openFlow(row.id, row.doc);
  store.setState({ savedVersion: row.version, conflict: null });
  await recoverUnsavedEdit(store, row).catch((error: unknown) =>
    store
      .getState()
      .alert(`Could not bring back the unsaved edits of ${row.doc.name}: ${String(error)}`),
  );
  const latest = await latestRunOfFlow(db, row.id);
  if (latest) store.getState().selectRun(latest.id);
}

/**
 * Bring back the edits a page had not saved when it went away (see
 * `db/settings.ts`) into the flow just opened, as one edit (one undo
 * takes it back) that the autosave then saves over the version it was made
 * on. When another tab saved the flow since, it is a conflict like any
 * other: the person chooses theirs or keeps these as a copy.
 */
async function recoverUnsavedEdit(store: EditorStore, row: FlowRow): Promise<void> {
  const edit = await takeUnsavedEdit(db, row.id);
  if (!edit || canonicalJson(edit.doc) === canonicalJson(row.doc)) return;
  const state = store.getState();
  if (state.flowId !== row.id || state.revision !== 0) {
    // The person moved on meanwhile: keep the edit for the next open.
    stashUnsavedEdit(db, edit);
    return;
  }
  state.changeDoc({ label: 'Recover unsaved edits', apply: () => edit.doc });
  if (edit.base !== row.version)
    store.setState({ conflict: { flowId: row.id, version: row.version } });
}

/** Add a document to the library as a new flow and open it. */
export async function addAndOpen(store: EditorStore, doc: FlowDocument): Promise<void> {
  const row = await createFlow(db, structuredClone(doc));
  await openLibraryFlow(store, row.id);
}

/**
 * Open an example as a new library flow: store the files it ships with
 * first (a param holds their digest; a file that does not match it is
 * refused, so the flow never names bytes it does not have), then fill in the
 * run parameters it comes with.
 */
export async function openExample(store: EditorStore, example: Example): Promise<void> {
  for (const file of example.files ?? []) {
    const response = await fetch(file.url);
    if (!response.ok) throw new Error(`${file.name}: ${response.status} ${response.statusText}`);
    const bytes = new Uint8Array(await response.arrayBuffer());
    const digest = await storeFile(db, file.name, bytes, file.mediaType);
    const named = example.doc.nodes.some((n) => Object.values(n.params).includes(digest));
    if (!named) throw new Error(`${file.name} (${digest}) is not the file the example names`);
  }
  await addAndOpen(store, example.doc);
  // Laid out and fitted to the view once the canvas has drawn it.
  store.setState({ layoutOnOpen: store.getState().flowId });
  for (const [name, value] of Object.entries(example.runParams ?? {}))
    store.getState().setRunParam(name, value);
}

/**
 * On start-up: reopen the flow that was open, or the one saved last, or put
 * the default example on the canvas (a first visit). After `signal` aborts
 * (the page's start-up was undone, as React does once in development) it
 * opens nothing: the start-up that replaced it does.
 */
export async function restoreSession(store: EditorStore, signal?: AbortSignal): Promise<void> {
  const backend = await readSetting(db, 'backend');
  if (backend && !signal?.aborted) store.getState().setBackend(backend);
  const useCache = await readSetting(db, 'useCache');
  if (useCache !== undefined && !signal?.aborted) store.getState().setUseCache(useCache);
  const open = await readSetting(db, 'openFlow');
  if (open && (await getFlow(db, open))) {
    if (!signal?.aborted) await openLibraryFlow(store, open);
    return;
  }
  // A first visit adds the default example, once however often this runs.
  const { row } = await firstFlow(db, defaultExample());
  if (!signal?.aborted) await openLibraryFlow(store, row.id);
}

/**
 * Autosave the open flow, debounced, whenever its document changes (and
 * without waiting when the page is hidden or closed) — and never over
 * another tab's edits. Each tab knows the library version its
 * document stands on and saves over that version only. When another tab
 * saves the same flow, this tab takes their version if it has nothing
 * unsaved, and otherwise stops saving and asks the person (`conflict`):
 * reload theirs, or keep this tab's edits as a copy. Tabs editing different
 * flows never meet.
 */
export function useAutosave(): void {
  const store = useEditorStore();
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    /** An edit of this tab waits to be saved. */
    let pending = false;
    /** The version a save in flight is writing (its own echo is not another tab's). */
    let writing = 0;
    /** What this page stashed as it was hidden, until a save that holds it lands. */
    let stash: UnsavedEdit | undefined;

    const save = async (flowId: FlowId, doc: FlowDocument, expected: number) => {
      writing = expected + 1;
      // Edits only add up in one tab: a save begun after the stash holds it.
      const stashedBefore = stash;
      try {
        const result = await saveFlowOver(db, flowId, doc, expected);
        if (
          'version' in result &&
          stash?.flowId === flowId &&
          (stash === stashedBefore || stash.doc === doc)
        ) {
          // The page was hidden, not closed: the stashed edit is saved after all.
          void dropUnsavedEdit(db, flowId, stash.base);
          stash = undefined;
        }
        const now = store.getState();
        if (now.flowId !== flowId) {
          // Saved on the way to another flow; a conflict then still must not pass in silence.
          if ('conflict' in result)
            now.alert(
              `Your last edits of “${doc.name}” were not saved: another tab saved it first`,
            );
          return;
        }
        pending = now.doc !== doc;
        if ('conflict' in result)
          store.setState({ conflict: { flowId, version: result.conflict.version } });
        else store.setState({ savedVersion: result.version });
      } catch (error) {
        store.getState().alert(`Could not save the flow: ${String(error)}`);
      } finally {
        writing = 0;
      }
    };
    const saveOpen = () => {
      timer = undefined;
      const { flowId, doc, savedVersion, conflict } = store.getState();
      if (flowId && doc && !conflict) void save(flowId, doc, savedVersion);
    };
    // A page hidden or closed may never run the debounce, nor finish a save
    // it starts: what is not saved yet is stashed now, in one write that lands
    // even as the page goes (see `db/settings.ts`), and saved as usual
    // in case the page lives on.
    const flush = () => {
      if (!pending) return;
      const { flowId, doc, savedVersion } = store.getState();
      if (!flowId || !doc) return;
      if (stash?.doc !== doc) {
        stash = { flowId, base: savedVersion, doc };
        stashUnsavedEdit(db, stash);
      }
      // A save in flight already holds the edits the debounce does not wait for; one at a time.
      if (timer === undefined || writing !== 0) return;
      clearTimeout(timer);
      saveOpen();
    };
    const flushWhenHidden = () => {
      if (document.visibilityState === 'hidden') flush();
    };
    window.addEventListener('pagehide', flush);
    document.addEventListener('visibilitychange', flushWhenHidden);

    let watching: { unsubscribe: () => void } | undefined;
    const watch = (flowId: FlowId | null) => {
      watching?.unsubscribe();
      if (!flowId) return;
      watching = live(() => getFlow(db, flowId)).subscribe({
        next: (row) => {
          const state = store.getState();
          if (!row || row.id !== state.flowId || state.conflict) return;
          if (row.version <= state.savedVersion || row.version === writing) return;
          if (pending) store.setState({ conflict: { flowId: row.id, version: row.version } });
          else store.setState({ doc: row.doc, savedVersion: row.version });
        },
      });
    };
    watch(store.getState().flowId);

    const unsubscribe = store.subscribe((state, previous) => {
      if (state.flowId !== previous.flowId) {
        // Edits of the flow left behind are saved now, not dropped.
        clearTimeout(timer);
        timer = undefined;
        if (pending && previous.flowId && previous.doc && !previous.conflict)
          void save(previous.flowId, previous.doc, previous.savedVersion);
        pending = false;
        watch(state.flowId);
      } else if (state.revision === 0 && previous.revision !== 0) {
        // The same flow opened afresh (its stored version): this tab's unsaved edits are let go.
        clearTimeout(timer);
        timer = undefined;
        pending = false;
      }
      // Opening a flow resets the revision to 0: nothing to save then.
      if (state.revision === previous.revision || state.revision === 0) return;
      if (!state.flowId || !state.doc) return;
      pending = true;
      clearTimeout(timer);
      timer = setTimeout(saveOpen, AUTOSAVE_MS);
    });
    return () => {
      clearTimeout(timer);
      window.removeEventListener('pagehide', flush);
      document.removeEventListener('visibilitychange', flushWhenHidden);
      watching?.unsubscribe();
      unsubscribe();
    };
  }, [store]);
}

/** Settle a conflict: show the other tab's version, or keep this tab's as a new flow. */
export async function resolveConflict(
  store: EditorStore,
  choice: 'reload-theirs' | 'keep-mine-as-copy',
): Promise<void> {
  const { conflict, doc } = store.getState();
  if (!conflict || !doc) return;
  if (choice === 'reload-theirs') return openLibraryFlow(store, conflict.flowId);
  await addAndOpen(store, { ...doc, name: `${doc.name} (copy)` });
}

/**
 * Import files a person picked (a folder of exported runs, say), in batches
 * the engine worker reads and writes: a run file is checked and written there
 * (one can hold 100,000 points; none of that work holds the page), each batch
 * of runs in one transaction; any other file comes back parsed and is imported
 * as a flow here. A refused file is alerted and does not stop the rest.
 * Resolves with the last run imported, for the caller to select.
 */
export async function importPickedFiles(
  store: EditorStore,
  engine: EngineClient,
  files: readonly File[],
  onProgress: (done: number) => void = () => {},
): Promise<RunId | undefined> {
  let lastRun: RunId | undefined;
  let done = 0;
  for (const batch of importBatches(files)) {
    const outcomes = await engine.call('importFiles', {
      files: batch.map((file) => ({ name: file.name, file })),
    });
    for (const [i, outcome] of outcomes.entries())
      try {
        if (outcome.kind === 'refused') throw reviveError(outcome.error);
        if (outcome.kind === 'run') lastRun = outcome.runId;
        else await importDocument(store, batch[i]!.name, outcome.value);
      } catch (error) {
        store.getState().alertError(error);
      }
    onProgress((done += batch.length));
  }
  return lastRun;
}

/** The most files, and bytes, one batch takes to the engine. */
const BATCH_FILES = 50;
const BATCH_BYTES = 64 * 1024 * 1024;

/** `files` in batches of at most BATCH_FILES files and BATCH_BYTES (or one larger file). */
function* importBatches(files: readonly File[]): Generator<File[]> {
  let batch: File[] = [];
  let bytes = 0;
  for (const file of files) {
    if (batch.length > 0 && (batch.length === BATCH_FILES || bytes + file.size > BATCH_BYTES)) {
      yield batch;
      batch = [];
      bytes = 0;
    }
    batch.push(file);
    bytes += file.size;
  }
  if (batch.length > 0) yield batch;
}

/**
 * Import a parsed flow file as a new library flow. Anything malformed is
 * refused whole with the JSON path at fault.
 */
export async function importDocument(
  store: EditorStore,
  file: string,
  value: unknown,
): Promise<{ flow?: FlowId }> {
  const format = formatOf(value);
  const parsed = parseFlow(value);
  if (!parsed.ok) {
    if (typeof format === 'string' && !(flowFormats as readonly string[]).includes(format))
      throw importRefused(
        file,
        `has format "${format}"; Flowbench imports "${flowFormats.join('", "')}" and "${RUN_FORMAT}" files`,
      );
    refuseImport(file, 'flow file', parsed.issues);
  }
  const issues = validateFlow(parsed.flow, builtinCatalog);
  if (issues.length > 0) refuseImport(file, 'flow', issues);
  await addAndOpen(store, parsed.flow);
  return { flow: store.getState().flowId ?? undefined };
}
