/**
 * Time, injected. The engine and its controller never read a real clock or
 * set a real timer themselves: they ask a `Clock`, so tests drive them with a
 * fake one and never wait on wall time, and a cancel reaches every sleep.
 */
import { runCancelled } from '../runtime/cancel';

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /** Resolves after `ms`; rejects with a `cancelled` error as soon as `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The real clock. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep(ms, signal) {
    if (signal?.aborted) return Promise.reject(runCancelled());
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        clearTimeout(timer);
        reject(runCancelled());
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  },
};

/** A signal that aborts when either does; undefined when neither is given. */
export function eitherSignal(a?: AbortSignal, b?: AbortSignal): AbortSignal | undefined {
  if (a && b) return AbortSignal.any([a, b]);
  return a ?? b;
}
