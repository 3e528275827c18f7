/**
 * The UI's side of the engine protocol: one worker per page, typed calls that
 * resolve with the worker's reply, and events (progress, finished runs) for
 * whoever subscribes. A call's result type follows from the protocol's map of
 * calls, and a reply is checked to answer the call it settles, so nothing is
 * cast; a failure arrives as the catalogue error the worker threw. A worker
 * that dies is reported, not hidden.
 */
import { FlowbenchError, reviveError } from '../../core/errors';
import {
  isResultOf,
  QUEUE_CHANNEL,
  type QueueNudge,
  type EngineCall,
  type EngineEvent,
  type EngineMessage,
  type EngineParams,
  type EngineReply,
  type EngineRequest,
  type EngineResult,
} from '../../../workers/protocol';

/** The UI's end of the engine: its `Worker`, or a `MessagePort` in tests. */
export interface EnginePort {
  postMessage(request: EngineRequest): void;
  onmessage: ((event: MessageEvent<EngineMessage>) => void) | null;
}

/** One call in flight. */
interface Pending {
  settle(reply: EngineReply): void;
  reject(error: Error): void;
}

export class EngineClient {
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Set<(event: EngineEvent) => void>();
  private nextId = 1;

  constructor(private readonly port: EnginePort) {
    port.onmessage = (event) => this.receive(event.data);
  }

  call<C extends EngineCall>(call: C, params: EngineParams<C>): Promise<EngineResult<C>> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const settle = (reply: EngineReply) => {
        if (!reply.ok) reject(reviveError(reply.error));
        else if (isResultOf(reply, call)) resolve(reply.result);
        else
          reject(
            new FlowbenchError('unexpected', {
              name: 'ProtocolError',
              message: `the engine answered request ${id} for '${call}' as one for '${reply.call}'`,
            }),
          );
      };
      this.pending.set(id, { settle, reject });
      const request: EngineRequest<C> = { id, call, params };
      this.port.postMessage(request);
    });
  }

  subscribe(listener: (event: EngineEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Fail every call in flight with `error`: nothing will answer them. */
  failPending(error: Error): void {
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
  }

  private receive(message: EngineMessage): void {
    if (message.type !== 'reply') {
      for (const listener of this.listeners) listener(message);
      return;
    }
    const pending = this.pending.get(message.id);
    if (!pending) return;
    this.pending.delete(message.id);
    pending.settle(message);
  }
}

/**
 * Start the page's engine worker. When it dies, every call in flight fails
 * with `engine-crashed` and `onCrash` gets that error to show.
 */
export function startEngine(onCrash: (error: FlowbenchError) => void): EngineClient {
  const worker = new Worker(new URL('../../../workers/engine.worker.ts', import.meta.url), {
    type: 'module',
    name: 'flowbench-engine',
  });
  const client = new EngineClient(worker);
  worker.onerror = (event) => {
    const error = new FlowbenchError('engine-crashed', {
      reason: event.message || 'unknown error',
    });
    client.failPending(error);
    onCrash(error);
  };
  return client;
}

let queueChannel: BroadcastChannel | null = null;

/**
 * Nudge every tab's engine, this tab's too, about the queue (`QUEUE_CHANNEL`
 * in the protocol): after a cancel request was written, say.
 */
export function nudgeEngines(nudge: QueueNudge): void {
  queueChannel ??= new BroadcastChannel(QUEUE_CHANNEL);
  queueChannel.postMessage(nudge);
}
