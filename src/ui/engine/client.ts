/**
 * The UI's side of the engine protocol: one worker per page, typed calls that
 * resolve with the worker's reply, and events (progress, finished runs) for
 * whoever subscribes. A worker that dies is reported, not hidden.
 */
import {
  EngineError,
  type EngineCall,
  type EngineCalls,
  type EngineEvent,
  type EngineMessage,
} from '../../../workers/protocol';

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

export class EngineClient {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Set<(event: EngineEvent) => void>();
  private nextId = 1;

  constructor(onCrash: (message: string) => void) {
    this.worker = new Worker(new URL('../../../workers/engine.worker.ts', import.meta.url), {
      type: 'module',
      name: 'flowbench-engine',
    });
    this.worker.onmessage = (event: MessageEvent<EngineMessage>) => this.receive(event.data);
    this.worker.onerror = (event) => {
      const message = `The engine stopped: ${event.message || 'unknown error'}`;
      for (const { reject } of this.pending.values())
        reject(new EngineError('engine-crashed', message));
      this.pending.clear();
      onCrash(message);
    };
  }

  call<C extends EngineCall>(
    call: C,
    params: EngineCalls[C]['params'],
  ): Promise<EngineCalls[C]['result']> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, {
        resolve: (value) => resolve(value as EngineCalls[C]['result']),
        reject,
      });
      this.worker.postMessage({ id, call, params });
    });
  }

  subscribe(listener: (event: EngineEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private receive(message: EngineMessage): void {
    if (message.type !== 'reply') {
      for (const listener of this.listeners) listener(message);
      return;
    }
    const pending = this.pending.get(message.id);
    if (!pending) return;
    this.pending.delete(message.id);
    if (message.ok) pending.resolve(message.result);
    else pending.reject(new EngineError(message.error.code, message.error.message));
  }
}
