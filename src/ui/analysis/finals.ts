/**
 * Each run's final value of each metric, for the parallel coordinates' metric
 * axes: the last point of every series, one cursor step per series however
 * long it is (`metricSeriesEnds`). Read once per set of finished runs, not
 * live: a sweep of a thousand runs writing points would otherwise re-read a
 * thousand runs at every commit.
 */
import { useEffect, useState } from 'react';
import type { RunId } from '../../core/run/record';
import { metricNames, metricSeriesEnds } from '../../db/metrics';
import { db } from '../db';

/** Final values by run, then metric. */
export type Finals = ReadonlyMap<RunId, Readonly<Record<string, number>>>;

async function readFinals(ids: readonly RunId[], namesOf: RunId): Promise<Finals> {
  const names = await metricNames(db, namesOf);
  const finals = new Map<RunId, Record<string, number>>();
  await Promise.all(
    ids.map(async (id) => {
      const values: Record<string, number> = {};
      for (const name of names) {
        const last = (await metricSeriesEnds(db, id, name)).last;
        if (last && Number.isFinite(last.value)) values[name] = last.value;
      }
      finals.set(id, values);
    }),
  );
  return finals;
}

/**
 * The final metric values of the finished runs `ids`, for the metrics run
 * `namesOf` has (the runs of a sweep share their metrics); empty until read.
 */
export function useFinals(ids: readonly RunId[], namesOf: RunId | undefined): Finals {
  const [finals, setFinals] = useState<Finals>(new Map());
  const key = ids.join(' ');
  useEffect(() => {
    if (!namesOf || key === '') return;
    let current = true;
    readFinals(key.split(' ') as RunId[], namesOf).then(
      (read) => {
        if (current) setFinals(read);
      },
      // The metric axes are extra: without them the params and results still draw.
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [key, namesOf]);
  return finals;
}
