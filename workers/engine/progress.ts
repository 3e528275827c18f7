/**
 * Progress reports, thinned. A training loop reports every step, hundreds of
 * times a second; the UI needs a few updates a second. Keep the latest per
 * run and node, send them together every `intervalMs`, and send a node's
 * last report (done = total) at once so the canvas never shows it unfinished.
 */
import type { RunId } from '../../src/core/run/record';

export interface ProgressReport {
  runId: RunId;
  node: string;
  done: number;
  total: number;
}

export function throttleProgress(
  send: (report: ProgressReport) => void,
  intervalMs: number,
): (report: ProgressReport) => void {
  const latest = new Map<string, ProgressReport>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    timer = undefined;
    for (const report of latest.values()) send(report);
    latest.clear();
  };
  return (report) => {
    const key = `${report.runId} ${report.node}`;
    if (report.done >= report.total) {
      latest.delete(key);
      send(report);
      return;
    }
    latest.set(key, report);
    timer ??= setTimeout(flush, intervalMs);
  };
}
