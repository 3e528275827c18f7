/**
 * Worker threads that run TypeScript, and the `Worker`-like port the
 * engine's hosts speak to (producers, the model worker). A worker thread
 * does not inherit the TypeScript loader, so each registers it before
 * loading its entry: a few hundred ms per thread, paid at its start.
 */
import { Worker } from 'node:worker_threads';

/** A worker thread running the TypeScript module at `entry` under the loader. */
export function tsThread(entry: URL, workerData?: unknown): Worker {
  return new Worker(
    `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`,
    { eval: true, workerData },
  );
}

/** `thread` behind the port a browser `Worker` offers: messages and errors as events. */
export function threadPort(thread: Worker) {
  return {
    postMessage: (message: unknown, transfer?: readonly unknown[]) =>
      thread.postMessage(message, transfer as never),
    addEventListener: (type: 'message' | 'error', listener: (event: never) => void) => {
      if (type === 'message') thread.on('message', (data: unknown) => listener({ data } as never));
      else
        thread.on('error', (error: Error) =>
          listener({ message: error.message, preventDefault: () => undefined } as never),
        );
    },
    terminate: () => void thread.terminate(),
  };
}
