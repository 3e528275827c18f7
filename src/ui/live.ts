/**
 * The UI's one way to watch stored data: a live read from the db layer
 * (`src/db`, which knows nothing of React) as component state, so a
 * component re-renders when the engine, or another tab, commits a change.
 */
import { useEffect, useEffectEvent, useState, type DependencyList } from 'react';
import type { Live } from '../db/live';

export interface UseLiveOptions {
  /**
   * `undefined` while the read for new `deps` has not answered yet, instead
   * of the last value read for the old ones: for views where a value of other
   * runs would be drawn wrong. A function says it for each change of `deps`
   * (`true`: not for the new ones), so a value that still holds for them
   * stays (the metrics of some runs, when more runs are added).
   */
  fresh?: boolean | ((before: DependencyList, now: DependencyList) => boolean);
  /**
   * Told of a failed read, and the watch goes on. Without it, the error is
   * thrown from the component, as any error in rendering is.
   */
  failed?: (error: unknown) => void;
}

/** A read: the `deps` it was opened for. */
interface ReadToken {
  readonly deps: DependencyList;
}

type Held<T> = { readonly read: ReadToken } & ({ value: T } | { error: unknown });

/**
 * The latest value of the live read `open()` returns: `undefined` until its
 * first answer. A new read is opened when `deps` change (as `useEffect`'s
 * do); until it answers, the last value read stays (see `fresh`).
 */
export function useLive<T>(
  open: () => Live<T>,
  deps: DependencyList,
  { fresh = false, failed }: UseLiveOptions = {},
): T | undefined {
  const read = useReadToken(deps);
  const [held, setHeld] = useState<Held<T>>();
  const openRead = useEffectEvent(open);
  const fail = useEffectEvent((error: unknown) => {
    if (failed) failed(error);
    else setHeld({ read, error });
  });
  useEffect(() => {
    const subscription = openRead().subscribe({
      next: (value) =>
        setHeld((before) =>
          before?.read === read && 'value' in before && before.value === value
            ? before
            : { read, value },
        ),
      error: fail,
    });
    return () => subscription.unsubscribe();
  }, [read]);
  if (held === undefined) return undefined;
  if (held.read !== read && (typeof fresh === 'function' ? fresh(held.read.deps, deps) : fresh))
    return undefined;
  if ('error' in held) throw held.error;
  return held.value;
}

/**
 * One token per read: a new one whenever `deps` change (compared as React
 * compares an effect's), so an answer can be told from an answer to old deps.
 */
function useReadToken(deps: DependencyList): ReadToken {
  const [held, setHeld] = useState<ReadToken>({ deps });
  if (held.deps.length === deps.length && held.deps.every((dep, i) => Object.is(dep, deps[i])))
    return held;
  const next = { deps };
  setHeld(next);
  return next;
}
