/**
 * The runs panel's line about this browser's storage: whether it is kept
 * until the person clears it, and how much is used of what the browser
 * allows. Read again whenever a run ends (runs are what fill it) and once
 * the browser answers the request for persistence.
 */
import { useEffect, useState, useSyncExternalStore } from 'react';
import { formatBytes } from '../../core/programs/pool';
import { finishedRunStatuses } from '../../core/run/record';
import { readStorageState, type StorageState } from './origin-storage';
import { persistenceAnswer, type PersistenceAnswer } from './persistence';
import { useRunList } from './queries';

function describePersistence(state: StorageState, answer: PersistenceAnswer): string {
  if (state.persistent === true) return 'persistent (kept until you clear it)';
  if (state.persistent === null) return 'the browser does not say whether it keeps it';
  if (answer === 'declined')
    return 'not persistent: the browser declined, and may clear it when the disk runs low';
  if (answer === 'not-asked') return 'not persistent yet (Flowbench asks at the first run)';
  return 'not persistent';
}

function describeUse(state: StorageState): string {
  if (state.usage === null) return '';
  const quota = state.quota === null ? '' : ` of ${formatBytes(state.quota)} available`;
  return ` · ${formatBytes(state.usage)} used${quota}`;
}

export function StorageStatus() {
  const answer = useSyncExternalStore(persistenceAnswer.subscribe, persistenceAnswer.get);
  const runs = useRunList();
  const ended = runs?.filter((run) => finishedRunStatuses.includes(run.status)).length ?? 0;
  const [state, setState] = useState<StorageState | null>(null);
  useEffect(() => {
    let current = true;
    readStorageState().then(
      (read) => current && setState(read),
      () => undefined, // the line keeps what it last showed
    );
    return () => {
      current = false;
    };
  }, [ended, answer]);
  if (!state) return null;
  return (
    <p className="fb-storage fb-muted" role="status" aria-label="Storage">
      Storage: {describePersistence(state, answer)}
      {describeUse(state)}
    </p>
  );
}
