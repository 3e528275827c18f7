/**
 * Asking for persistent storage once, at the first run of the page, and
 * what the browser answered, for the runs panel to show. Asked at a run,
 * not on load: that is when there is something worth keeping, and a
 * browser that asks the person (Firefox) asks after a click of theirs.
 */
import { askPersistentStorage } from './origin-storage';

/** Where the request stands: not made yet, in flight, or the browser's answer. */
export type PersistenceAnswer = 'not-asked' | 'asking' | 'granted' | 'declined' | 'unsupported';

let answer: PersistenceAnswer = 'not-asked';
const listeners = new Set<() => void>();

function settle(next: PersistenceAnswer): void {
  answer = next;
  for (const listener of listeners) listener();
}

/** Ask the browser for persistent storage, the first time a run is submitted on this page. */
export function askPersistenceOnFirstRun(): void {
  if (answer !== 'not-asked') return;
  settle('asking');
  askPersistentStorage().then(
    (granted) => settle(granted === null ? 'unsupported' : granted ? 'granted' : 'declined'),
    () => settle('unsupported'),
  );
}

/** For `useSyncExternalStore`: the answer so far, and a way to hear of the next. */
export const persistenceAnswer = {
  get: (): PersistenceAnswer => answer,
  subscribe: (listener: () => void): (() => void) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};
