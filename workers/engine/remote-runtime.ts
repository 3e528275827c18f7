/**
 * The engine's side of the model protocol: a `TensorRuntime` whose sessions
 * run in the model worker (`model-host.ts`).
 *
 * Why a worker of its own: onnxruntime's WASM build with more than one
 * thread blocks the thread that calls it (`Atomics.wait`) while its pool
 * works, and while that was the engine worker, Chromium stopped answering
 * the engine's IndexedDB transactions part-way through a run on a busy
 * machine, for good. Now the engine never blocks on a model: it keeps the
 * run, its records and its messages moving while a step computes (a cancel
 * or a metric flush need not wait for a long step), and only the model
 * worker, which touches no storage, waits on onnxruntime's threads.
 *
 * The price is a message each way per session run: about 60 µs when both
 * threads are awake, more where waking a sleeping thread is dear (virtual
 * machines). CPU feeds go in buffers of a pool that the model worker gives
 * back after the run (no fresh memory per step; the copy is what the feed
 * held when the run started, as onnxruntime's own copy-in is); CPU outputs
 * come back with their buffers transferred; device tensors stay in the
 * model worker and are named here by number. A model worker that dies fails
 * every call in flight and every later one of the runtimes it served, with
 * its error; the next runtime gets a fresh worker.
 */
import type {
  Backend,
  DeviceTensor,
  EngineInfo,
  Fetched,
  ModelSession,
  NodeBackend,
  SessionOptions,
  Tensor,
  TensorRuntime,
} from '../../src/core/engine/runtime';
import { isDeviceTensor } from '../../src/core/engine/runtime';
import type {
  ModelCall,
  ModelCalls,
  ModelReply,
  ModelRequest,
  WireFeed,
  WireFetched,
} from '../model-protocol';
import { BufferPool } from '../../src/core/data/buffer-pool';
import type { Locks } from './model-host';
import { nodeBackend } from './ort-runtime';

/** The engine's end of a model worker (a `Worker`, or a `MessagePort` in tests). */
export interface ModelPort {
  postMessage(message: ModelRequest, transfer?: Transferable[]): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<ModelReply>) => void): void;
  addEventListener(type: 'error', listener: (event: ErrorEvent) => void): void;
  terminate(): void;
}

/** The error of every call to a model worker that died. */
export class ModelWorkerError extends Error {
  readonly code = 'model-worker-died';
  override name = 'ModelWorkerError';
}

const GONE = 'the model worker stopped without a word (it may have run out of memory)';

/**
 * How long disposals wait for a call to ride with before they go alone: a
 * loop's next step comes sooner, and a message of their own would wake the
 * model worker once more per step.
 */
const DISPOSE_ALONE_MS = 50;

interface Pending {
  resolve(result: unknown): void;
  reject(error: Error): void;
}

/** One model worker, from its start to its death. */
class ModelConnection {
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private nextRuntime = 0;
  /** Buffers CPU feeds go out in and come back in. */
  private readonly buffers = new BufferPool();
  /** Device tensors disposed since the last message. */
  private disposed: number[] = [];
  dead: Error | null = null;

  constructor(
    private readonly port: ModelPort,
    locks: Locks,
    lock: string,
  ) {
    port.addEventListener('message', (event) => this.answer(event.data));
    port.addEventListener('error', (event) => {
      event.preventDefault(); // handled here: it fails the node, it is not an uncaught page error
      this.die(new ModelWorkerError(`the model worker died: ${event.message || 'no message'}`));
    });
    // A worker that is gone without an error event (out of memory, closed) lets its lock go.
    this.call('hold', { lock }).then(
      () =>
        locks.request(lock, () => {
          this.die(new ModelWorkerError(GONE));
          return Promise.resolve();
        }),
      () => undefined, // it died before it held the lock: `die` has said why
    );
  }

  /** A number for a runtime of this worker. */
  runtimeId(): number {
    return ++this.nextRuntime;
  }

  call<C extends ModelCall>(
    call: C,
    params: ModelCalls[C]['params'],
    transfer: ArrayBuffer[] = [],
  ): Promise<ModelCalls[C]['result']> {
    if (this.dead) return Promise.reject(this.dead);
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.port.postMessage({ id, call, params, ...this.takeDisposed() } as ModelRequest, transfer);
    });
  }

  /**
   * A CPU tensor to send: its data copied into a buffer of the pool, which
   * the model worker gives back when the run has settled. A loop's feeds are
   * the same sizes every step, so in a steady state no memory is fresh.
   */
  outgoing(tensor: Tensor): { wire: WireFeed; buffer: ArrayBuffer } {
    const { data } = tensor;
    const buffer = this.buffers.take(data.byteLength);
    const copy =
      data instanceof Float32Array
        ? new Float32Array(buffer, 0, data.length)
        : new Int32Array(buffer, 0, data.length);
    copy.set(data);
    return { wire: { tensor: { type: tensor.type, data: copy, dims: [...tensor.dims] } }, buffer };
  }

  /** Tell the worker a device tensor is done with: with the next call, or alone if none comes soon. */
  dispose(tensor: number): void {
    if (this.dead) return;
    this.disposed.push(tensor);
    if (this.disposed.length === 1)
      setTimeout(() => {
        if (this.disposed.length > 0 && !this.dead)
          this.port.postMessage({ call: 'dispose', ...this.takeDisposed() });
      }, DISPOSE_ALONE_MS);
  }

  private takeDisposed(): { dispose?: number[] } {
    if (this.disposed.length === 0) return {};
    const dispose = this.disposed;
    this.disposed = [];
    return { dispose };
  }

  private answer(reply: ModelReply): void {
    if (reply.buffers) this.buffers.give(reply.buffers);
    const pending = this.pending.get(reply.id);
    if (!pending) return;
    this.pending.delete(reply.id);
    if (reply.ok) pending.resolve(reply.result);
    else pending.reject(Object.assign(new Error(reply.error.message), { code: reply.error.code }));
  }

  private die(error: Error): void {
    if (this.dead) return;
    this.dead = error;
    this.port.terminate();
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) p.reject(error);
  }
}

/** The engine's model worker: started on first use, and again after it dies. */
export class ModelWorker {
  private connection: ModelConnection | null = null;
  private started = 0;

  constructor(
    private readonly spawn: () => ModelPort,
    private readonly locks: Locks,
    /** Names this engine's workers' locks apart from other tabs'. */
    private readonly prefix = `flowbench model worker ${crypto.randomUUID()}`,
  ) {}

  /** The live connection, starting a worker when there is none. */
  connect(): ModelConnection {
    if (!this.connection || this.connection.dead)
      this.connection = new ModelConnection(
        this.spawn(),
        this.locks,
        `${this.prefix} ${++this.started}`,
      );
    return this.connection;
  }
}

/** A device tensor that stays in the model worker. */
class RemoteDeviceTensor implements DeviceTensor {
  readonly location = 'device';
  private disposed = false;

  constructor(
    readonly connection: ModelConnection,
    private readonly live: Set<RemoteDeviceTensor>,
    readonly id: number,
    readonly storage: DeviceTensor['storage'],
    readonly type: Tensor['type'],
    readonly dims: readonly number[],
  ) {
    live.add(this);
  }

  /** The wire form to feed a session; a disposed one is refused, as onnxruntime's own are. */
  fed(): WireFeed {
    if (this.disposed)
      throw new Error(`a device tensor [${this.dims.join(', ')}] was fed after dispose()`);
    return { device: this.id };
  }

  read(): Promise<Tensor> {
    if (this.disposed) return Promise.reject(new Error('read of a device tensor after dispose()'));
    return this.connection.call('read', { tensor: this.id });
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.live.delete(this);
    this.connection.dispose(this.id);
  }

  /** Its runtime was released: the model worker let go of it already. */
  forget(): void {
    this.disposed = true;
    this.live.delete(this);
  }
}

/** A run's tensor runtime, its sessions in the model worker. */
export class RemoteRuntime implements TensorRuntime {
  private connection: { link: ModelConnection; runtime: number } | null = null;
  private readonly deviceTensors = new Set<RemoteDeviceTensor>();

  constructor(
    readonly info: EngineInfo,
    private readonly worker: ModelWorker,
    /** The backend `auto` resolves to for this run. */
    private readonly runBackend: Backend,
  ) {}

  backendFor(choice: NodeBackend): Backend {
    return nodeBackend(choice, this.info, this.runBackend);
  }

  /** This runtime's worker, started on its first session (a run with no model starts none). */
  private link() {
    if (!this.connection) {
      const link = this.worker.connect();
      this.connection = { link, runtime: link.runtimeId() };
    }
    return this.connection;
  }

  async createSession(
    model: Uint8Array,
    choice: NodeBackend,
    options: SessionOptions = {},
  ): Promise<ModelSession> {
    this.backendFor(choice); // a forced backend this engine lacks is refused here, before any call
    const { link, runtime } = this.link();
    const made = await link.call('create', {
      runtime,
      info: this.info,
      runBackend: this.runBackend,
      model,
      choice,
      deviceOutputs: [...(options.deviceOutputs ?? [])],
    });
    const live = this.deviceTensors;
    const unwire = (value: WireFetched): Fetched =>
      'tensor' in value
        ? value.tensor
        : new RemoteDeviceTensor(link, live, value.device, value.storage, value.type, value.dims);
    return {
      backend: made.backend,
      inputNames: made.inputNames,
      outputNames: made.outputNames,
      async run(feeds) {
        const wired: Record<string, WireFeed> = {};
        const transfer: ArrayBuffer[] = [];
        for (const name in feeds) {
          const feed = feeds[name]!;
          // This worker's device tensors go by number; any other device tensor is read and sent.
          if (feed instanceof RemoteDeviceTensor && feed.connection === link) {
            wired[name] = feed.fed();
            continue;
          }
          const { wire, buffer } = link.outgoing(isDeviceTensor(feed) ? await feed.read() : feed);
          wired[name] = wire;
          transfer.push(buffer);
        }
        const outputs = await link.call('run', { session: made.session, feeds: wired }, transfer);
        const fetched: Record<string, Fetched> = {};
        for (const name in outputs) fetched[name] = unwire(outputs[name]!);
        return fetched;
      },
      async release() {
        await link.call('release', { session: made.session });
      },
    };
  }

  /** Release every session and device tensor of this run in the model worker. */
  async releaseAll(): Promise<void> {
    for (const tensor of [...this.deviceTensors]) tensor.forget();
    if (!this.connection || this.connection.link.dead) return;
    await this.connection.link.call('releaseAll', { runtime: this.connection.runtime });
  }
}
