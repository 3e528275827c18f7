/**
 * Each run's final value of each metric, for the parallel coordinates' metric
 * axes: the last point of every series, a cached node's from the run that
 * computed it, one cursor step per series however long it is (`finalValues`). Read once per finished run, not live: a
 * sweep of a thousand runs writing points would otherwise re-read a
 * thousand runs at every commit.
 */
import { useEffect, useRef, useState } from 'react';
import type { RunId } from '../../core/run/record';
import { finalValues } from '../../db/cache-links';
import { db } from '../db';

/** Final values by run, then metric. */
export type Finals = ReadonlyMap<RunId, Readonly<Record<string, number>>>;

/** How long a burst of finished runs (a sweep, an import) waits before their finals are read together. */
const SETTLE_MS = 250;

/**
 * The final metric values of the finished runs `ids`, for the metrics run
 * `namesOf` has (the runs of a sweep share their metrics); empty until read.
 * A finished run's finals never change, so each run is read once: a sweep
 * or an import that adds runs one by one reads only the new ones, a burst
 * of them together, not every run again for each (which made a thousand
 * imported runs a million series reads).
 */
export function useFinals(ids: readonly RunId[], namesOf: RunId | undefined): Finals {
  const [finals, setFinals] = useState<Finals>(new Map());
  const known = useRef<{ namesOf: RunId | undefined; finals: Map<RunId, Record<string, number>> }>({
    namesOf: undefined,
    finals: new Map(),
  });
  const key = ids.join(' ');
  useEffect(() => {
    if (!namesOf || key === '') return;
    if (known.current.namesOf !== namesOf) known.current = { namesOf, finals: new Map() };
    const held = known.current.finals;
    const wanted = key.split(' ') as RunId[];
    const shown = () =>
      new Map(wanted.flatMap((id) => (held.has(id) ? [[id, held.get(id)!]] : [])));
    const missing = wanted.filter((id) => !held.has(id));
    if (missing.length === 0) {
      setFinals(shown());
      return;
    }
    let current = true;
    const timer = setTimeout(() => {
      finalValues(db, missing, namesOf).then(
        (read) => {
          for (const [id, values] of read) held.set(id, values);
          if (current) setFinals(shown());
        },
        // The metric axes are extra: without them the params and results still draw.
        () => undefined,
      );
    }, SETTLE_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [key, namesOf]);
  return finals;
}
