/**
 * Thinning a stream of per-node reports. A loop reports every step, hundreds
 * of times a second; the UI needs a few updates a second. Keep the latest
 * report per run and node, send them together every `intervalMs`, and send a
 * node's last report at once, so the UI never shows it unfinished.
 */
import type { RunId } from '../../src/core/run/record';

export function thinReports<R extends { runId: RunId; node: string }>(
  send: (report: R) => void,
  intervalMs: number,
  isLast: (report: R) => boolean,
): (report: R) => void {
  const latest = new Map<string, R>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    timer = undefined;
    for (const report of latest.values()) send(report);
    latest.clear();
  };
  return (report) => {
    const key = `${report.runId} ${report.node}`;
    if (isLast(report)) {
      latest.delete(key);
      send(report);
      return;
    }
    latest.set(key, report);
    timer ??= setTimeout(flush, intervalMs);
  };
}
