/**
 * A run's metric path as the run driver wires it, in the page: its
 * `MetricBatcher` (the driver's default batch size and delay) writing
 * through its `RunMetricWriter`, each flush timed from the call to its
 * commit. The write rows and the disk row push their points through it.
 */
import { MetricBatcher } from '../../src/core/run/metric-batcher';
import type { RunId } from '../../src/core/run/record';
import { RunMetricWriter } from '../../src/db/metric-writer';
import type { FlowbenchDb } from '../../src/db/schema';

export interface TimedMetricPath {
  readonly batcher: MetricBatcher;
  /** Wall ms of each flush, in order. */
  readonly flushMs: number[];
  /** Flush what is left; throws the first write that failed. */
  finish(): Promise<void>;
}

/** The metric path of run `runId` into `db`; `now` is the wall clock its points record. */
export function timedMetricPath(db: FlowbenchDb, runId: RunId, now: () => number): TimedMetricPath {
  const flushMs: number[] = [];
  let failure: unknown = null;
  const metrics = new RunMetricWriter(db, runId);
  const batcher = new MetricBatcher({
    runId,
    write: async (rows) => {
      const start = performance.now();
      await metrics.put(rows);
      flushMs.push(performance.now() - start);
    },
    now,
    setTimer: (fire, ms) => {
      const timer = setTimeout(fire, ms);
      return () => clearTimeout(timer);
    },
    onError: (error) => {
      failure ??= error;
    },
  });
  return {
    batcher,
    flushMs,
    async finish() {
      await batcher.flush();
      if (failure !== null)
        throw new Error(
          `a metric write failed: ${failure instanceof Error ? failure.message : 'unknown error'}`,
          { cause: failure },
        );
    },
  };
}
