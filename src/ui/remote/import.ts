/**
 * Import of a remote run: its file is fetched from the server and handed to
 * the engine worker's importer exactly as a file a person picked (checked,
 * migrated and written in one transaction), so a remote run enters IndexedDB
 * by the one door every run file uses, and only then.
 */
import { FlowbenchError, reviveError } from '../../core/errors';
import type { RunId } from '../../core/run/record';
import type { EngineClient } from '../engine/client';
import type { EditorStore } from '../store/editor';
import { fetchRemoteRunFile, shownUrl } from './client';
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
  const [outcome] = await engine.call('importFiles', { files: [{ name: file.name, file }] });
  if (outcome?.kind === 'refused') throw reviveError(outcome.error);
  if (outcome?.kind !== 'run')
    throw new FlowbenchError('remote-malformed', {
      url: shownUrl(server, `/runs/${encodeURIComponent(runId)}`),
      expected: 'a run file',
      problem: 'the answer is a file of another kind',
    });
  remote.select(null);
  store.getState().selectRun(outcome.runId);
  return outcome.runId;
}
