/**
 * Live values of streaming ports, for the canvas. Every value is recorded by
 * the metric path; what is published live is thinned to at most one value
 * per port per rate-limit interval (the flow's `rateLimits`, or a default),
 * always the latest, and the last one is published when the run closes,
 * or when its node has done all its steps (`flush`), so that a finished
 * node's last step shows with its last value.
 */

export const DEFAULT_LIVE_INTERVAL_MS = 250;

export function liveValues(
  publish: (node: string, port: string, value: number) => void,
  intervalOf: (node: string, port: string) => number,
): {
  push: (node: string, port: string, value: number) => void;
  flush: (node: string) => void;
  close: () => void;
} {
  const pending = new Map<string, { node: string; port: string; value: number }>();
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  const release = (key: string) => {
    timers.delete(key);
    const latest = pending.get(key);
    if (!latest) return;
    pending.delete(key);
    publish(latest.node, latest.port, latest.value);
    // Values that arrive during the next interval wait for it.
    timers.set(
      key,
      setTimeout(() => release(key), intervalOf(latest.node, latest.port)),
    );
  };
  return {
    push(node, port, value) {
      const key = `${node}.${port}`;
      pending.set(key, { node, port, value });
      if (!timers.has(key)) release(key);
    },
    flush(node) {
      for (const [key, latest] of pending)
        if (latest.node === node) {
          pending.delete(key);
          publish(latest.node, latest.port, latest.value);
        }
    },
    close() {
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      for (const { node, port, value } of pending.values()) publish(node, port, value);
      pending.clear();
    },
  };
}
