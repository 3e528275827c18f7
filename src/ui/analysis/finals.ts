/**
 * Each run's final value of each metric, for the parallel coordinates' metric
 * axes: the last point of every series, a cached node's from the run that
 * computed it, one cursor step per series however long it is (`finalValues`).
 * Read once per finished run, not live: a sweep of a thousand runs writing
 * points would otherwise re-read a thousand runs at every commit. When and
 * how many at a time: `FinalsReader`.
 */
import { useEffect, useState } from 'react';
import type { RunId } from '../../core/run/record';
import { finalValues } from '../../db/cache-links';
import { db } from '../db';
import { FinalsReader, type Finals } from './finals-reader';

export type { Finals } from './finals-reader';

/** How long a burst of finished runs (a sweep, an import) waits before their finals are read together. */
const SETTLE_MS = 250;
/** The most runs whose finals one read takes (its results are handled in one task). */
const READ_SLICE = 50;

/**
 * The final metric values of the finished runs `ids`, for the metrics run
 * `namesOf` has (the runs of a sweep share their metrics); empty until read.
 */
export function useFinals(ids: readonly RunId[], namesOf: RunId | undefined): Finals {
  const [finals, setFinals] = useState<Finals>(new Map());
  const [reader] = useState(() => {
    const made: FinalsReader = new FinalsReader({
      read: (runs, names) => finalValues(db, runs, names),
      settleMs: SETTLE_MS,
      slice: READ_SLICE,
      setTimer: (fire, ms) => {
        const timer = setTimeout(fire, ms);
        return () => clearTimeout(timer);
      },
      onChange: () => setFinals(made.shown()),
    });
    return made;
  });
  const key = ids.join(' ');
  useEffect(() => {
    reader.want(key === '' ? [] : (key.split(' ') as RunId[]), namesOf);
  }, [reader, key, namesOf]);
  useEffect(() => () => reader.close(), [reader]);
  return finals;
}
