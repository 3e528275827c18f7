/** Progress reports of running nodes, thinned to a few a second (see `thin.ts`). */
import type { RunId } from '../../src/core/run/record';
import { thinReports } from './thin';

export interface ProgressReport {
  runId: RunId;
  node: string;
  done: number;
  total: number;
  /** The node's own measure of its rate, steps per second, where it has one. */
  perSecond?: number;
}

export function throttleProgress(
  send: (report: ProgressReport) => void,
  intervalMs: number,
): (report: ProgressReport) => void {
  return thinReports(send, intervalMs, (report) => report.done >= report.total);
}
