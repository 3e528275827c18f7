/**
 * Node's worker threads standing in for the browser's Web Workers: a thread
 * running one of the bench's TypeScript entries, and the `Worker`-like port
 * the product's protocols talk through (`postMessage`, `message` and `error`
 * events, `terminate`).
 */
import { Worker } from 'node:worker_threads';

/** A worker thread running `file` (beside this one) under the TypeScript loader. */
export function tsThread(file: string): Worker {
  // A worker thread does not inherit the TypeScript loader: register it, then load the entry.
  const entry = new URL(file, import.meta.url).href;
  return new Worker(
    `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`,
    { eval: true },
  );
}

/** The engine's end of a protocol, as a browser `Worker` offers it. */
export interface ThreadPort<Request, Reply> {
  readonly thread: Worker;
  postMessage(message: Request, transfer?: Transferable[]): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<Reply>) => void): void;
  addEventListener(type: 'error', listener: (event: ErrorEvent) => void): void;
  terminate(): void;
}

/** A thread running `file`, behind a `Worker`-like port. */
export function threadPort<Request, Reply>(file: string): ThreadPort<Request, Reply> {
  const thread = tsThread(file);
  return {
    thread,
    postMessage: (message, transfer) => thread.postMessage(message, transfer as never),
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

/**
 * Web Locks, which Node lacks, for the model protocol's watch on its worker:
 * nothing is ever granted, so neither side waits on the other (no thread of
 * the bench dies on purpose; one that fails says so with an error event).
 */
export const noLocks = { request: () => new Promise<never>(() => undefined) };
