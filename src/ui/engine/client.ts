/**
 * The UI's side of the engine protocol: one worker per page, typed calls that
 * resolve with the worker's reply, and events (progress, finished runs) for
 * whoever subscribes. A call's result type follows from the protocol's map of
 * calls, and a reply is checked to answer the call it settles, so nothing is
 * cast; a failure arrives as the catalogue error the worker threw. A worker
 * that dies is reported, not hidden.
 *
 * A run is driven by whichever tab's engine took it from the queue, so the
 * events of this tab's engine are relayed to every other tab's page (a
 * BroadcastChannel, `relayRunEvents`), and theirs to this one: every tab
 * shows a run's live progress and its failures, whichever tab drives it.
 * The page relays, not the worker, so no tab hears its own engine twice and
 * each listener knows whether the event came from this tab's engine.
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

/** Whose engine sent an event: this tab's, or another tab's (relayed). */
export type EventOrigin = 'this-tab' | 'another-tab';

/** Hears the events of every tab's engine. */
export type EngineListener = (event: EngineEvent, from: EventOrigin) => void;

export class EngineClient {
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Set<EngineListener>();
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

  subscribe(listener: EngineListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Tell every listener an event another tab's engine sent (see `relayRunEvents`). */
  deliverRelayed(event: EngineEvent): void {
    for (const listener of this.listeners) listener(event, 'another-tab');
  }

  /** Fail every call in flight with `error`: nothing will answer them. */
  failPending(error: Error): void {
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
  }

  private receive(message: EngineMessage): void {
    if (message.type !== 'reply') {
      for (const listener of this.listeners) listener(message, 'this-tab');
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
  relayRunEvents(client, new BroadcastChannel(RUN_EVENTS_CHANNEL));
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

/** The BroadcastChannel on which each tab's page relays its engine's events to the others. */
export const RUN_EVENTS_CHANNEL = 'flowbench.run-events';

/** A channel to every other tab's page (a `BroadcastChannel`; a `MessagePort` in tests). */
export interface TabChannel {
  postMessage(event: EngineEvent): void;
  onmessage: ((message: MessageEvent<EngineEvent>) => void) | null;
}

/**
 * Relay the events of `client`'s engine (this tab's) to the other tabs over
 * `channel`, and theirs to `client`'s listeners; returns a function that
 * stops relaying this tab's.
 */
export function relayRunEvents(client: EngineClient, channel: TabChannel): () => void {
  channel.onmessage = (message) => client.deliverRelayed(message.data);
  return client.subscribe((event, from) => {
    if (from === 'this-tab') channel.postMessage(event);
  });
}
