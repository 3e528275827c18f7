/**
 * The engine's side of the model worker: `ModelWorkerClient` makes sessions
 * whose onnxruntime runs in the model worker (workers/model-protocol.ts) and
 * whose loops run K steps per message (`ModelSession.openLoop`).
 *
 * Why a worker of its own: onnxruntime's WASM threads, sharing memory with
 * the engine worker, made Chromium stop answering the engine's IndexedDB
 * transactions on a busy machine (ort-loader.ts, `WASM_THREADS`). In the
 * model worker they share memory with nothing that touches storage, and the
 * engine only awaits a message; with a loop's steps going over K at a time,
 * the hop that made one-message-per-step 2–3.5× slower is paid once per K.
 *
 * One model worker per engine, started with the first session and kept for
 * the next runs (onnxruntime's start-up is paid once). A worker that dies
 * (an error event) rejects every call in flight with the reason, and the
 * next session starts a fresh one. Where the browser says nothing (a worker
 * out of memory just goes), the Web Lock the worker holds for its life
 * coming free tells the same (`ModelCalls.hold`).
 */
import { FlowbenchError, reviveError } from '../../src/core/errors';
import type {
  Fetched,
  LoopStepFeeds,
  ModelSession,
  SessionOptions,
  StepLoop,
  StepLoopPlan,
  Tensor,
} from '../../src/core/runtime/tensor-runtime';
import { hostDeviceTensor, readTensor } from '../../src/core/runtime/tensor-runtime';
import {
  tensorBuffers,
  type ModelCall,
  type ModelCalls,
  type ModelReply,
  type ModelRequest,
} from '../model-protocol';

/** The engine's end of a model worker (a `Worker`, or a `MessagePort` in tests). */
export interface ModelPort {
  postMessage(message: ModelRequest, transfer?: Transferable[]): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<ModelReply>) => void): void;
  addEventListener(type: 'error', listener: (event: ErrorEvent) => void): void;
  terminate(): void;
}

interface Pending {
  resolve(result: unknown): void;
  reject(error: Error): void;
}

/** One model worker, started on first use; see the module comment. */
class Connection {
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  dead: Error | null = null;

  constructor(readonly port: ModelPort) {
    port.addEventListener('message', (event) => this.answer(event.data));
    port.addEventListener('error', (event) => {
      event.preventDefault(); // handled here: it fails the run, it is not an uncaught page error
      this.die(new FlowbenchError('model-worker-died', { reason: event.message || 'no message' }));
    });
  }

  call<C extends ModelCall>(
    call: C,
    params: ModelCalls[C]['params'],
    transfer: Transferable[] = [],
  ): Promise<ModelCalls[C]['result']> {
    if (this.dead) return Promise.reject(this.dead);
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.port.postMessage({ id, call, params } as ModelRequest, transfer);
    });
  }

  private answer(reply: ModelReply): void {
    const waiting = this.pending.get(reply.id);
    if (waiting === undefined) return;
    this.pending.delete(reply.id);
    if (reply.ok) waiting.resolve(reply.result);
    else waiting.reject(reviveError(reply.error));
  }

  die(error: Error): void {
    if (this.dead) return;
    this.dead = error;
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
    this.port.terminate();
  }
}

/** The Web Locks the engine can ask for (`navigator.locks`; a stand-in in tests). */
export interface EngineLocks {
  request(name: string, callback: () => unknown): Promise<unknown>;
}

let workers = 0;

/** Sessions in a model worker made by `spawn`; see the module comment. */
export class ModelWorkerClient {
  private connection: Promise<Connection> | null = null;
  private current: Connection | null = null;

  /** @param locks where the worker's life is watched; none: only its error event tells. */
  constructor(
    private readonly spawn: () => ModelPort,
    private readonly locks?: EngineLocks,
  ) {}

  private connect(): Promise<Connection> {
    if (this.connection === null || this.current?.dead != null) {
      const link = new Connection(this.spawn());
      this.current = link;
      this.connection = this.watch(link).then(
        () => link,
        (error: unknown) => {
          // A worker that cannot be watched is not used: the next session starts another.
          link.die(error instanceof Error ? error : new Error(String(error)));
          throw error;
        },
      );
    }
    return this.connection;
  }

  /** Once the worker holds its life's lock, wait for that lock: it comes free only when the worker is gone. */
  private async watch(link: Connection): Promise<void> {
    const locks = this.locks;
    if (locks === undefined) return;
    const lock = `flowbench model worker ${Date.now()}-${++workers}-${Math.random()}`;
    await link.call('hold', { lock });
    void locks.request(lock, () =>
      link.die(
        new FlowbenchError('model-worker-died', {
          reason: 'it stopped without a word (it may have run out of memory)',
        }),
      ),
    );
  }

  /** A WASM session in the model worker. */
  async createSession(model: Uint8Array, options: SessionOptions = {}): Promise<ModelSession> {
    const link = await this.connect();
    const deviceOutputs = new Set(options.deviceOutputs ?? []);
    // A copy goes over: the model's bytes stay the engine's.
    const made = await link.call('create', { model, deviceOutputs: [...deviceOutputs] });
    const session = made.session;
    let released = false;
    const handle: ModelSession = {
      backend: made.backend,
      inputNames: made.inputNames,
      outputNames: made.outputNames,
      host: `the model worker (${made.threads} onnxruntime thread${made.threads === 1 ? '' : 's'})`,
      async run(feeds) {
        const cpu: Record<string, Tensor> = {};
        for (const [name, feed] of Object.entries(feeds)) cpu[name] = await readTensor(feed);
        const outputs = await link.call('run', { session, feeds: cpu });
        const back: Record<string, Fetched> = {};
        for (const [name, tensor] of Object.entries(outputs))
          back[name] = deviceOutputs.has(name) ? hostDeviceTensor(tensor) : tensor;
        return back;
      },
      async openLoop(plan) {
        return openLoop(link, session, plan);
      },
      async release() {
        if (released) return;
        released = true;
        // A dead worker's sessions are gone with it.
        if (link.dead === null) await link.call('release', { session });
      },
    };
    return handle;
  }
}

/** Whether a cancel can be a flag in shared memory here (a cross-origin isolated context). */
function sharedFlag(): SharedArrayBuffer | null {
  const isolated = (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated;
  if (typeof SharedArrayBuffer === 'undefined' || isolated === false) return null;
  return new SharedArrayBuffer(4);
}

async function openLoop(link: Connection, session: number, plan: StepLoopPlan): Promise<StepLoop> {
  const cancel = sharedFlag();
  const flag = cancel === null ? null : new Int32Array(cancel);
  const { loop } = await link.call('open', {
    session,
    carried: plan.carried.map((c) => ({ input: c.input, output: c.output })),
    initial: { ...plan.initial },
    constants: { ...plan.constants },
    read: [...plan.read],
    cancel,
  });
  let closed = false;
  return {
    // The worker takes a call's steps as soon as it has done the one before (model-host.ts).
    ahead: 2,
    async run(steps: readonly LoopStepFeeds[], signal: AbortSignal) {
      const stop = () => flag !== null && Atomics.store(flag, 0, 1);
      if (signal.aborted) stop();
      signal.addEventListener('abort', stop);
      try {
        // The steps' feeds are the loop's own copies: their buffers move, not copied again.
        const transfer = tensorBuffers(steps.flatMap((s) => (s === null ? [] : Object.values(s))));
        return await link.call('steps', { loop, steps: [...steps] }, transfer);
      } finally {
        signal.removeEventListener('abort', stop);
      }
    },
    carried: (inputs) => link.call('carried', { loop, inputs: [...inputs] }),
    async close() {
      if (closed || link.dead !== null) return;
      closed = true;
      await link.call('close', { loop });
    },
  };
}
