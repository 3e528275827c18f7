/**
 * A node's progress, thinned for what prints it. A training loop reports
 * every step — a thousand or more a second on a small model — and each
 * report printed is a write, a pipe's copy and, for a sweep or a script
 * reading `--json`, a parse at the other end, all on the cores the training
 * runs on. A person reads a line ten times a second at most, so a node's
 * first report, its last (every unit done) and at most one per `everyMs`
 * between pass; the run record is not thinned (the driver writes it).
 */

/** How often a running node's progress is printed, at most. */
export const PROGRESS_MS = 100;

/** Returns whether the report of `node` at `done` of `total` is one to print now. */
export function progressGate(
  now: () => number = () => performance.now(),
  everyMs = PROGRESS_MS,
): (node: string, done: number, total: number) => boolean {
  const printed = new Map<string, number>();
  return (node, done, total) => {
    const at = now();
    const last = printed.get(node);
    if (done < total && last !== undefined && at - last < everyMs) return false;
    printed.set(node, at);
    return true;
  };
}
