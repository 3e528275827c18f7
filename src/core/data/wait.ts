/**
 * One bounded wait, the only way the controller waits for anything: look, and
 * if the answer is not there yet, sleep one poll interval and look again,
 * until an absolute end. Polling (rather than waking on each cache change)
 * keeps every wait driven by the injected clock alone, so a fake clock can
 * replay it exactly; the cost is up to one poll interval of latency. A wait
 * that slept is recorded as one interval, whether it ended in data, a
 * timeout, an error or a cancel.
 */
import { runCancelled } from '../runtime/cancel';
import type { Clock } from './clock';
import type { DataTelemetry, WaitKind } from './telemetry';

export interface BoundedWait<T> {
  kind: WaitKind;
  /** Absolute end on `clock`, epoch ms. */
  until: number;
  /** Milliseconds between looks. */
  pollMs: number;
  /** The answer, or undefined to keep waiting; may throw to end the wait at once. */
  look(): T | undefined;
  /** The error to throw at `until`, given how long the wait lasted (ms). */
  timeout(waitedMs: number): Error;
  clock: Clock;
  telemetry: DataTelemetry;
  signal?: AbortSignal | undefined;
}

export async function waitBounded<T>(wait: BoundedWait<T>): Promise<T> {
  const { clock, signal } = wait;
  const start = clock.now();
  let slept = false;
  try {
    for (;;) {
      if (signal?.aborted) throw runCancelled();
      const answer = wait.look();
      if (answer !== undefined) return answer;
      const now = clock.now();
      if (now >= wait.until) throw wait.timeout(now - start);
      slept = true;
      await clock.sleep(Math.min(wait.pollMs, wait.until - now), signal);
    }
  } finally {
    if (slept)
      wait.telemetry.interval({ kind: wait.kind, start: start / 1000, end: clock.now() / 1000 });
  }
}
