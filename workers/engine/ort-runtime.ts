/**
 * onnxruntime-web behind the engine's `TensorRuntime` seam.
 *
 * Backend choice: `auto` uses WebGPU only on a hardware adapter (adapter.ts,
 * `autoBackend`). onnxruntime is imported lazily, inside the worker, and only
 * the build for the backend in use is fetched (ort-loader.ts).
 *
 * Device tensors: outputs a session was asked to keep on the device come back
 * as `OrtDeviceTensor`s — on WebGPU an ORT `gpu-buffer` tensor, which feeds
 * the next run without a copy; on WASM the CPU tensor itself. The runtime
 * remembers every device tensor it handed out and disposes what is left when
 * the run ends (`releaseAll`), whatever way it ends, so a failed or cancelled
 * loop cannot leak GPU buffers. It holds those in GPU buffers by reference;
 * those in CPU memory (WASM, onnxruntime-node) hold nothing to free, so it
 * only counts them, and a release ends them all at once (`DeviceLedger`).
 * Trade-off: a device tensor fed to a session on another backend is
 * downloaded first. A device tensor fed after its
 * `dispose()` is refused on every backend (on WASM its data would still be
 * there, and the same loop would fail only on WebGPU).
 *
 * CPU feeds: a session wraps a CPU tensor for onnxruntime once and feeds
 * the wrapper again while the tensor keeps its data array and dims — a
 * training loop feeds the same batch and hyperparameter tensors every step,
 * rewriting their data in place. onnxruntime copies a CPU feed's data in
 * when a run starts (WASM heap or GPU upload) and keeps no hold on the array
 * after the run resolves, so the wrapper always feeds what the array holds
 * then.
 *
 * Device loss: once a WebGPU session exists the runtime watches the device
 * ORT runs on (`device.lost`). When it is lost, every WebGPU run in flight
 * and every later one rejects at once with a `device-lost` error that names
 * the loss — a step waiting on a dead GPU would otherwise never settle — so
 * the program runner fails the node through its one exit, which gives back
 * the pool's bytes, and the run's end releases the sessions.
 *
 * Loops: a WASM session asked for with `loops` (a training loop that takes
 * its batches ahead) goes to the model worker when the runtime has one
 * (model-client.ts), where onnxruntime has threads of its own and a loop's
 * steps go over K per message; every other session stays here, on one
 * thread. Where no worker hosts loops (the command line), such a session
 * still runs a loop's steps K per call (session-loop.ts), and the runner
 * takes a call's results together. WebGPU sessions always stay here; one
 * asked for with `loops` runs its loop on the GPU (`openLoop`,
 * device-loop.ts): the dataset uploaded once where it fits, each step fed
 * its row indices, the weights never leaving the device, the losses read
 * back together once per call — and
 * every byte that crosses counted (`transfers`). There the step runs
 * captured where onnxruntime allows it (`graphCapture`, captured-step.ts):
 * recorded once, replayed every step over fixed buffers.
 */
import type * as Ort from 'onnxruntime-web';
import {
  isDeviceTensor,
  isTypedConstant,
  type Backend,
  type BackendChoice,
  type DeviceTensor,
  type EngineInfo,
  type Feed,
  type Fetched,
  type ModelSession,
  type NodeBackend,
  type SessionOptions,
  type Tensor,
  type TensorRuntime,
} from '../../src/core/runtime/tensor-runtime';
import { FlowbenchError } from '../../src/core/errors';
import { ortConstantData } from './ort-dtypes';
import { byteLength, DeviceLedger, fromOrt, OrtDeviceTensor } from './device-tensors';
import type { OrtLoader, OrtModule } from './ort-loader';
import { TransferLedger } from '../../src/core/runtime/transfers';
import { openDeviceLoop, type DeviceOps } from '../../src/core/runtime/device-loop';
import { inTurn } from './ort-turns';
import { openSessionLoop } from '../../src/core/runtime/session-loop';
import { ortSteps } from './ort-steps';
import { firstValuesGraph } from './device-graphs';
import { copyGraph, openCapturedStep } from './captured-step';
import {
  datasetStaysResident,
  RESIDENT_DATASET_BYTES,
  residentDatasetLimits,
} from '../../src/core/runtime/resident-dataset';

/** Where sessions driven in loops can run instead of here: the model worker (model-client.ts). */
export interface LoopHost {
  createSession(model: Uint8Array, options: SessionOptions): Promise<ModelSession>;
}

/** What a `GPUDevice.lost` promise resolves with. */
interface DeviceLostInfo {
  readonly reason?: string;
  readonly message?: string;
}

/** The part of a `GPUDevice` the runtime watches. */
interface WatchedDevice {
  readonly lost?: Promise<DeviceLostInfo>;
}

/** The WebGPU device ORT ran on was lost (driver reset, GPU removed, destroyed). */
type DeviceLostError = FlowbenchError<'device-lost'>;

function deviceLostError(info: DeviceLostInfo): DeviceLostError {
  return new FlowbenchError('device-lost', {
    reason: info.reason === 'unknown' ? undefined : info.reason,
    detail: info.message,
  });
}

/**
 * Whether WebGPU training loops run as device loops by default: the dataset
 * uploaded once, each step fed its rows, the losses read back per call.
 */
export const DEVICE_LOOPS = true;

/**
 * Whether a WebGPU device loop runs its train step captured (onnxruntime's
 * graph capture: recorded once, replayed each step over fixed buffers) where
 * the library allows it; where it refuses, the loop runs uncaptured and the
 * node's log says why. The replays give the uncaptured loop's losses bit
 * for bit (`npm run bench:gpu`), and WASM's losses in the app
 * (e2e/webgpu.spec.ts, e2e/images.spec.ts).
 */
export const GRAPH_CAPTURE = true;

/** How an `OrtRuntime` runs training loops: on the GPU (WebGPU), and beside the engine. */
export interface TrainingLoopOptions {
  /** Device loops on WebGPU; default `DEVICE_LOOPS`. */
  readonly deviceLoops?: boolean;
  /** Device loops try graph capture; default `GRAPH_CAPTURE`. */
  readonly graphCapture?: boolean;
  /** The most bytes of a dataset a device loop keeps on the GPU; default `RESIDENT_DATASET_BYTES`. */
  readonly residentDatasetBytes?: number;
  /**
   * Loops no worker hosts run their steps here, K per call (session-loop.ts);
   * default true. Off, each of their steps is its own run, as the engine
   * takes them: the reference the loops are checked against.
   */
  readonly sessionLoops?: boolean;
  /**
   * The sessions read a CPU feed where it lies and write an output into a
   * tensor they are given (onnxruntime-node; onnxruntime-web copies both
   * ways). Those loops then have each carried output written over the
   * tensor the step before read, and gather each step's rows from the whole
   * dataset fed as it is (a model's `gatheringModel`, session-loop.ts).
   * Default false.
   */
  readonly inPlace?: boolean;
}

/** What an upload needs of a `GPUDevice`. */
interface UploadDevice {
  createBuffer(descriptor: { size: number; usage: number }): { destroy(): void };
  readonly queue: {
    writeBuffer(buffer: unknown, offset: number, data: Float32Array | Int32Array): void;
  };
}
/** What a copy into a buffer of onnxruntime's keeps on the device (captured-step.ts). */
const COPY_OUTPUT: ReadonlySet<string> = new Set(['out']);
/** `GPUBufferUsage` STORAGE | COPY_SRC | COPY_DST: what onnxruntime needs of an input's buffer. */
const UPLOAD_USAGE = 0x80 | 0x04 | 0x08;

/** A session's run with its transfers counted: outputs in `keep` stay on the device. */
type CountedRun = (
  feeds: Readonly<Record<string, Feed>>,
  keep: ReadonlySet<string>,
  ledger: TransferLedger,
) => Promise<Record<string, Fetched>>;

/** A session as handed out, with its counted run beside it. */
interface CountedSession {
  readonly handle: ModelSession;
  readonly run: CountedRun;
}

/** An ORT tensor made over a CPU tensor, and what it was made from. */
class WrappedTensor {
  private readonly type: Tensor['type'];
  private readonly data: Tensor['data'];
  private readonly dims: readonly number[];

  constructor(
    readonly tensor: Ort.Tensor,
    from: Tensor,
  ) {
    this.type = from.type;
    this.data = from.data;
    this.dims = [...from.dims];
  }

  /** Whether `feed` still has the type, data array and dims the wrapper was made with. */
  matches(feed: Tensor): boolean {
    if (feed.data !== this.data || feed.type !== this.type) return false;
    const { dims } = feed;
    if (dims.length !== this.dims.length) return false;
    for (let i = 0; i < dims.length; i++) if (dims[i] !== this.dims[i]) return false;
    return true;
  }
}

export class OrtRuntime implements TensorRuntime {
  private readonly modules = new Map<Backend, Promise<OrtModule>>();
  private readonly sessions = new Set<ModelSession>();
  private readonly deviceTensors = new DeviceLedger();
  /** Set once the WebGPU device is lost. */
  private lost: DeviceLostError | null = null;
  /** Rejects when the WebGPU device is lost (watched from the first WebGPU session on). */
  private deviceLoss: Promise<never> | null = null;

  constructor(
    readonly info: EngineInfo,
    private readonly load: OrtLoader,
    /** The backend `auto` resolves to for this run. */
    private readonly runBackend: Backend,
    /** Where WASM sessions driven in loops run; none: here, like every other. */
    private readonly loops?: LoopHost,
    options: TrainingLoopOptions = {},
  ) {
    this.deviceLoops = options.deviceLoops ?? DEVICE_LOOPS;
    this.graphCapture = options.graphCapture ?? GRAPH_CAPTURE;
    this.residentDatasetBytes = options.residentDatasetBytes ?? RESIDENT_DATASET_BYTES;
    this.sessionLoops = options.sessionLoops ?? true;
    this.inPlace = options.inPlace ?? false;
    this.hostLoopsGather = this.inPlace && this.sessionLoops && loops === undefined;
  }

  /** Whether WebGPU sessions driven in loops run their steps as device loops (device-loop.ts). */
  readonly deviceLoops: boolean;
  /** Whether those device loops try to run their step captured (captured-step.ts). */
  readonly graphCapture: boolean;
  /** The most bytes of a dataset a WebGPU loop keeps on the device; 0: none ever. */
  readonly residentDatasetBytes: number;
  /** Whether loops no worker hosts run K steps per call here (session-loop.ts). */
  readonly sessionLoops: boolean;
  /** Whether the sessions read and write CPU tensors in place (onnxruntime-node). */
  readonly inPlace: boolean;
  /** Whether loops beside the engine gather their rows from the dataset in place (`inPlace` loops). */
  readonly hostLoopsGather: boolean;

  /** Resolve a run's backend choice against what this engine has. */
  static resolve(choice: BackendChoice, info: EngineInfo): Backend {
    if (choice === 'auto') return info.backend;
    if (choice === 'webgpu' && !info.adapter)
      throw new FlowbenchError('backend-unavailable', {
        problem: 'WebGPU was chosen but this browser gives no WebGPU adapter; choose auto or wasm',
      });
    return choice;
  }

  /** Device tensors handed out and not yet disposed (GPU buffers on WebGPU). */
  get liveDeviceTensors(): number {
    return this.deviceTensors.size;
  }

  /** Why WebGPU can no longer run here, once its device is lost. */
  get deviceLost(): DeviceLostError | null {
    return this.lost;
  }

  /** Starts watching the device ORT's WebGPU backend runs on; once per runtime. */
  private watchDevice(ort: OrtModule): Promise<never> {
    if (this.deviceLoss !== null) return this.deviceLoss;
    // A build that cannot say which device it uses is never seen as lost.
    const device = new Promise<WatchedDevice | undefined>((resolve) => {
      resolve(ort.env.webgpu.device as Promise<WatchedDevice | undefined>);
    }).catch(() => undefined);
    this.deviceLoss = device
      .then((found) => found?.lost ?? new Promise<never>(() => undefined))
      .then((info) => {
        // `destroyed` is a device let go on purpose (onnxruntime destroys its
        // device once its last session is released, and makes a new one for
        // the next): no loss, and the next session watches the new device.
        if (info.reason === 'destroyed') {
          this.deviceLoss = null;
          return new Promise<never>(() => undefined);
        }
        this.lost = deviceLostError(info);
        throw this.lost;
      });
    // Nobody may be running when the device goes: that is no unhandled rejection.
    this.deviceLoss.catch(() => undefined);
    return this.deviceLoss;
  }

  /** The backend a node's choice runs on here. */
  backendFor(choice: NodeBackend): Backend {
    if (choice === 'auto') return this.runBackend;
    if (choice === 'prefer-webgpu') return this.info.adapter ? 'webgpu' : 'wasm';
    return OrtRuntime.resolve(choice, this.info);
  }

  async createSession(
    model: Uint8Array,
    choice: NodeBackend,
    options: SessionOptions = {},
  ): Promise<ModelSession> {
    const backend = this.backendFor(choice);
    if (backend === 'wasm' && options.loops === true && this.loops !== undefined) {
      const remote = await this.loops.createSession(model, options);
      const sessions = this.sessions;
      const handle: ModelSession = {
        ...remote,
        release: () => {
          sessions.delete(handle);
          return remote.release();
        },
      };
      sessions.add(handle);
      return handle;
    }
    return (await this.openSession(model, backend, options)).handle;
  }

  /** Bytes moved between the CPU and the GPU by every WebGPU session of this runtime. */
  get transfers(): TransferLedger {
    return this.deviceTensors.transfers;
  }

  /**
   * A session here on `backend`. On WebGPU a session driven in loops keeps
   * every output in a GPU buffer and offers `openLoop` (device-loop.ts);
   * its plain `run` still brings back what is not in `deviceOutputs`.
   */
  private async openSession(
    model: Uint8Array,
    backend: Backend,
    options: SessionOptions,
  ): Promise<CountedSession> {
    const ort = await this.module(backend);
    if (backend === 'webgpu' && this.lost) throw this.lost;
    const deviceOutputs = new Set(options.deviceOutputs ?? []);
    const loopsOnDevice = backend === 'webgpu' && options.loops === true && this.deviceLoops;
    const loopsHere = backend !== 'webgpu' && options.loops === true && this.sessionLoops;
    const session = await ort.InferenceSession.create(model, {
      executionProviders: [backend],
      ...(backend === 'webgpu' &&
        (loopsOnDevice
          ? { preferredOutputLocation: 'gpu-buffer' as const }
          : deviceOutputs.size > 0 && {
              preferredOutputLocation: Object.fromEntries(
                [...deviceOutputs].map((name) => [name, 'gpu-buffer' as const]),
              ),
            })),
    });
    const sessions = this.sessions;
    const ledger = this.deviceTensors;
    const loss = backend === 'webgpu' ? this.watchDevice(ort) : null;
    // Bytes cross a bus only between the CPU and a GPU.
    const counted = backend === 'webgpu';
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the handle's methods read the runtime's loss
    const runtime = this;
    const wrapped = new WeakMap<Tensor, WrappedTensor>();
    /**
     * This session's ORT tensor over a CPU tensor's data, made once per
     * tensor: a loop feeds the same batch and hyperparameter tensors every
     * unit, their data rewritten in place. ORT copies a CPU feed's data in
     * when a run starts, so the wrapper is current whatever was written
     * before; if the tensor now points at other data or dims, it is wrapped anew.
     */
    const cpuTensor = (feed: Tensor): Ort.Tensor => {
      const known = wrapped.get(feed);
      if (known !== undefined && known.matches(feed)) return known.tensor;
      const tensor = new ort.Tensor(feed.type, feed.data, feed.dims);
      wrapped.set(feed, new WrappedTensor(tensor, feed));
      return tensor;
    };
    const toOrt = async (feed: Feed): Promise<Ort.Tensor> => {
      if (feed instanceof OrtDeviceTensor && feed.backend === backend) return feed.fed();
      if (isTypedConstant(feed))
        return new ort.Tensor(feed.type, ortConstantData(feed), [...feed.dims]);
      const tensor = isDeviceTensor(feed) ? await feed.read() : feed;
      return new ort.Tensor(tensor.type, tensor.data, tensor.dims);
    };
    const run: CountedRun = async (feeds, keep, transfers) => {
      if (loss && runtime.lost) throw runtime.lost;
      const ortFeeds: Record<string, Ort.Tensor> = {};
      for (const name in feeds) {
        const feed = feeds[name]!;
        // This backend's GPU tensors cross nothing; every other feed is copied in.
        if (feed instanceof OrtDeviceTensor && feed.backend === backend) {
          ortFeeds[name] = feed.fed();
          // One that onnxruntime left in CPU memory is copied in like any CPU feed.
          if (counted && !feed.onGpu) transfers.upload(byteLength(feed.tensor.data));
          continue;
        }
        // CPU tensors need no await: a train step feeds a dozen of them every unit.
        const tensor =
          isDeviceTensor(feed) || isTypedConstant(feed) ? await toOrt(feed) : cpuTensor(feed);
        ortFeeds[name] = tensor;
        if (counted) transfers.upload(byteLength(tensor.data));
      }
      // One run at a time on the module (ort-turns.ts). On WebGPU a run races the device's loss:
      // a lost GPU never answers, and its turn ends with the loss.
      const results = await inTurn(ort, () =>
        loss ? Promise.race([session.run(ortFeeds), loss]) : session.run(ortFeeds),
      );
      const out: Record<string, Fetched> = {};
      // A train step returns a dozen outputs every unit: no entries array per run.
      for (const name in results) {
        const tensor = results[name]!;
        if (keep.has(name)) {
          out[name] = new OrtDeviceTensor(tensor, backend, ledger, loss);
          continue;
        }
        if (tensor.location === 'gpu-buffer') {
          const data = tensor.getData(true);
          const read = await (loss ? Promise.race([data, loss]) : data);
          transfers.download(byteLength(read));
          out[name] = fromOrt(tensor, read);
          continue;
        }
        if (counted) transfers.download(byteLength(tensor.data));
        out[name] = fromOrt(tensor);
      }
      return out;
    };
    const handle: ModelSession = {
      backend,
      inputNames: session.inputNames,
      outputNames: session.outputNames,
      run: (feeds) => run(feeds, deviceOutputs, ledger.transfers),
      ...(loopsOnDevice && {
        openLoop: (plan) => openDeviceLoop(runtime.deviceOps(run, model), plan, ledger.transfers),
      }),
      // A loop no worker hosts (the command line's) runs its steps here, K per call.
      ...(loopsHere && {
        openLoop: (plan) =>
          Promise.resolve(openSessionLoop(ortSteps(ort, session, this.inPlace), plan)),
      }),
      async release() {
        sessions.delete(handle);
        const released = session.release();
        // A session of a lost device is let go without waiting on the dead GPU.
        await (loss ? Promise.race([released, loss.catch(() => undefined)]) : released);
      },
    };
    sessions.add(handle);
    return { handle, run };
  }

  /** onnxruntime's build for `backend`, loaded once. */
  private module(backend: Backend): Promise<OrtModule> {
    let module = this.modules.get(backend);
    if (!module) {
      module = this.load(backend);
      this.modules.set(backend, module);
    }
    return module;
  }

  /** What a device loop over the train step `run` (of `model`) needs of this runtime (WebGPU). */
  private deviceOps(run: CountedRun, model: Uint8Array): DeviceOps {
    const own: ModelSession[] = [];
    const readers = new Map<number, CountedSession>();
    const copiers = new Map<Tensor['type'], Promise<CountedSession>>();
    /**
     * Copies of `feeds` in buffers onnxruntime owns (captured-step.ts says
     * why): made on the GPU, or uploaded from the CPU (counted).
     */
    const ownedCopies = async (
      feeds: Readonly<Record<string, Tensor | DeviceTensor>>,
      transfers: TransferLedger,
    ): Promise<Record<string, OrtDeviceTensor>> => {
      const out: Record<string, OrtDeviceTensor> = {};
      for (const [name, feed] of Object.entries(feeds)) {
        const type = feed.type;
        let copier = copiers.get(type);
        if (copier === undefined) {
          copier = this.openSession(copyGraph(type), 'webgpu', { deviceOutputs: ['out'] });
          copiers.set(type, copier);
          own.push((await copier).handle);
        }
        const copied = (await (await copier).run({ in: feed }, COPY_OUTPUT, transfers)).out;
        if (!(copied instanceof OrtDeviceTensor) || !copied.onGpu)
          throw new Error(`the copy of ${name} did not stay in a GPU buffer`);
        out[name] = copied;
      }
      return out;
    };
    // The rule the pool admits the dataset's bytes by (resident-dataset.ts).
    const limits = residentDatasetLimits(this);
    return {
      run,
      upload: async (tensors, transfers) => {
        const ort = await this.module('webgpu');
        const device = (await ort.env.webgpu.device) as UploadDevice;
        const made: Record<string, DeviceTensor> = {};
        for (const [name, tensor] of Object.entries(tensors)) {
          const bytes = tensor.data.byteLength;
          // onnxruntime binds whole 16-byte units: a scalar's buffer is 16 bytes, 4 of them written.
          const size = Math.ceil(bytes / 16) * 16;
          const buffer = device.createBuffer({ size, usage: UPLOAD_USAGE });
          device.queue.writeBuffer(buffer, 0, tensor.data);
          transfers.upload(bytes);
          const onGpu = ort.Tensor.fromGpuBuffer(buffer as unknown as Ort.Tensor.GpuBufferType, {
            dataType: tensor.type,
            dims: tensor.dims,
            dispose: () => buffer.destroy(),
          });
          made[name] = new OrtDeviceTensor(onGpu, 'webgpu', this.deviceTensors, this.deviceLoss);
        }
        return made;
      },
      readFirst: async (tensors, transfers) => {
        // Sessions for powers of two, the last tensor fed again as padding: few sessions, one download.
        let n = 1;
        while (n < tensors.length) n *= 2;
        let reader = readers.get(n);
        if (reader === undefined) {
          reader = await this.openSession(firstValuesGraph(n), 'webgpu', {});
          readers.set(n, reader);
          own.push(reader.handle);
        }
        const feeds: Record<string, Feed> = {};
        for (let i = 0; i < n; i++) feeds[`in.${i}`] = tensors[Math.min(i, tensors.length - 1)]!;
        const out = await reader.run(feeds, new Set(), transfers);
        const values = out.values;
        if (values === undefined || isDeviceTensor(values) || isTypedConstant(values))
          throw new Error('the read-back of the loop values returned nothing');
        return Float32Array.from(values.data.subarray(0, tensors.length));
      },
      fits: (tensors) =>
        datasetStaysResident(
          tensors.map((t) => t.data.byteLength),
          limits,
        ),
      release: async () => {
        await Promise.allSettled(own.splice(0).map((s) => s.release()));
        readers.clear();
        copiers.clear();
      },
      ...(this.graphCapture && {
        capture: {
          open: async (inputs, first, plan, transfers) => {
            const ort = await this.module('webgpu');
            if (this.lost) throw this.lost;
            return openCapturedStep(
              { ort, model, loss: this.deviceLoss, ownedCopies },
              inputs,
              first,
              plan,
              transfers,
            );
          },
        },
      }),
    };
  }

  /** Release every session and device tensor still open (a run ends, whatever way it ends). */
  async releaseAll(): Promise<void> {
    this.deviceTensors.release();
    await Promise.allSettled([...this.sessions].map((s) => s.release()));
  }
}
