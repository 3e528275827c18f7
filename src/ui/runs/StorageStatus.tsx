/**
 * The runs panel's line about this browser's storage: whether it is kept
 * until the person clears it, and how much is used of what the browser
 * allows. Read again whenever a run ends (runs are what fill it), at most
 * every `REREAD_MS` (a sweep ends runs faster than the browser sums its
 * storage, and each read costs it more as the storage grows), and once the
 * browser answers the request for persistence.
 */
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { formatBytes } from '../../core/programs/pool';
import { finishedRunStatuses } from '../../core/run/record';
import { readStorageState, type StorageState } from './origin-storage';
import { persistenceAnswer, type PersistenceAnswer } from './persistence';
import { useRunList } from './queries';

/** The least time between two reads of the storage estimate. */
const REREAD_MS = 2_000;

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
  const lastRead = useRef(-Infinity);
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);
  useEffect(() => {
    // A read once in flight is kept (a run ending meanwhile asks for the next one, not instead).
    const timer = setTimeout(
      () => {
        lastRead.current = Date.now();
        readStorageState().then(
          (read) => mounted.current && setState(read),
          () => undefined, // the line keeps what it last showed
        );
      },
      Math.max(0, lastRead.current + REREAD_MS - Date.now()),
    );
    return () => clearTimeout(timer);
  }, [ended, answer]);
  if (!state) return null;
  return (
    <p className="fb-storage fb-muted" role="status" aria-label="Storage">
      Storage: {describePersistence(state, answer)}
      {describeUse(state)}
    </p>
  );
}
