/**
 * Pool reports, thinned. A program runner ticks once per unit, hundreds of
 * times a second; the pool view needs a few updates a second. Keep the
 * latest report per run and node, send them together every `intervalMs`, and
 * send a node's final report at once so the view keeps how its programs
 * ended.
 */
import type { PoolEvent } from '../protocol';

/** The pool as one node's programs saw it after a tick (a `pool` event without its tag). */
export type PoolReport = Omit<PoolEvent, 'type'>;

export function throttlePoolReports(
  send: (report: PoolReport) => void,
  intervalMs: number,
): (report: PoolReport) => void {
  const latest = new Map<string, PoolReport>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    timer = undefined;
    for (const report of latest.values()) send(report);
    latest.clear();
  };
  return (report) => {
    const key = `${report.runId} ${report.node}`;
    if (report.final) {
      latest.delete(key);
      send(report);
      return;
    }
    latest.set(key, report);
    timer ??= setTimeout(flush, intervalMs);
  };
}
