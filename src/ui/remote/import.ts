/**
 * Import of a remote run: its file is fetched from the server and handed to
 * the importer exactly as a file a person picked (the engine worker checks,
 * migrates and writes it in one transaction), so a remote run enters
 * IndexedDB by the one door every run file uses, and only then.
 */
import type { RunId } from '../../core/run/record';
import type { EngineClient } from '../engine/client';
import { importPickedFile } from '../library';
import type { EditorStore } from '../store/editor';
import { fetchRemoteRunFile } from './client';
import { remote } from './remote-store';

/** Import remote run `runId`; it becomes a local run, selected. Throws when refused, storing nothing. */
export async function importRemoteRun(
  store: EditorStore,
  engine: EngineClient,
  runId: string,
): Promise<RunId | undefined> {
  const server = remote.store.getState().server;
  if (!server) return undefined;
  const text = await fetchRemoteRunFile(server, runId);
  const file = new File([text], `${runId}.run.json`, { type: 'application/json' });
  const imported = await importPickedFile(store, engine, file);
  if (imported.run) remote.select(null);
  return imported.run;
}
