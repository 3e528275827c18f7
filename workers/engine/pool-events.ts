/**
 * Pool reports, thinned (see `thin.ts`): a program runner ticks once per
 * unit; the pool view needs a few updates a second, and each node's final
 * report, which keeps how its programs ended.
 */
import type { PoolEvent } from '../protocol';
import { thinReports } from './thin';

/** The pool as one node's programs saw it after a tick (a `pool` event without its tag). */
export type PoolReport = Omit<PoolEvent, 'type'>;

export function throttlePoolReports(
  send: (report: PoolReport) => void,
  intervalMs: number,
): (report: PoolReport) => void {
  return thinReports(send, intervalMs, (report) => report.final);
}
