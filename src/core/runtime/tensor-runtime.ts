/**
 * The tensor runtime as the engine sees it: sessions over ONNX models on a
 * backend. Core defines the shape; the worker supplies onnxruntime-web, and
 * unit tests supply the same library under Node. Keeping the runtime behind
 * this seam is what lets the engine stay pure TypeScript.
 *
 * Device residency: a session may return some outputs as `DeviceTensor`s —
 * handles to data that stays where the backend computed it (a GPU buffer on
 * WebGPU; on WASM simply the CPU array) — and accepts them back as feeds. A
 * training loop feeds each step's updated weights straight into the next
 * step and reads back only what it emits. Trade-off: whoever receives a
 * device tensor owns it and must `dispose()` it; the seam cannot garbage
 * collect GPU memory.
 */
import type { TransferCounts, TransferLedger } from './transfers.ts';

export type Backend = 'webgpu' | 'wasm';
export type BackendChoice = 'auto' | Backend;
export const backendChoices: readonly BackendChoice[] = ['auto', 'webgpu', 'wasm'];
/**
 * Where one node's sessions run: a run-level choice, or `prefer-webgpu` —
 * WebGPU on any adapter (even a software one), WASM when there is none.
 * A node set to `webgpu` *requires* it: its run waits for an engine that has it.
 */
export type NodeBackend = BackendChoice | 'prefer-webgpu';
export const nodeBackends = ['auto', 'webgpu', 'prefer-webgpu', 'wasm'] as const;

/** A tensor in CPU memory. */
export interface Tensor {
  type: 'float32' | 'int32';
  data: Float32Array | Int32Array;
  dims: readonly number[];
  /**
   * A model output of another element type than the engine's (int64, bool,
   * float16 …) keeps its exact values here; `data` holds them as float32.
   */
  exact?: ExactValues;
}

/**
 * An output's values in the type the model declared: 64-bit integers as
 * bigints, every other numeric type (bool as 0/1, float16, float64, the
 * smaller integers) as doubles, which hold each of them exactly.
 */
export interface ExactValues {
  /** onnxruntime's name for the type: `int64`, `bool`, `float16` … */
  readonly type: string;
  readonly data: Float64Array | BigInt64Array | BigUint64Array;
}

/**
 * A tensor that stays on the backend's device (a GPU buffer on WebGPU; on
 * WASM it wraps CPU data). Its receiver owns it: `dispose()` it once no
 * session will read it again. Disposing twice is harmless.
 */
export interface DeviceTensor {
  readonly location: 'device';
  /** Where the data really is: a GPU buffer (WebGPU), or CPU memory (WASM, tests). */
  readonly storage: 'gpu-buffer' | 'cpu';
  readonly type: Tensor['type'];
  readonly dims: readonly number[];
  /** Copies the data back to the CPU (a download on WebGPU); the tensor stays valid. */
  read(): Promise<Tensor>;
  dispose(): void;
}

/**
 * The element types a typed constant may have: what a person can type for a
 * model's input, and what a tensor fed to one may be converted to (every
 * numeric type onnxruntime's `Tensor` takes, and bool).
 */
export const constantTypes = [
  'float32',
  'float16',
  'float64',
  'int8',
  'int16',
  'int32',
  'int64',
  'uint8',
  'uint16',
  'uint32',
  'uint64',
  'bool',
] as const;
export type ConstantType = (typeof constantTypes)[number];

/**
 * A constant fed to a model input of any element type it declares (an
 * `int64` sample rate, a `bool` flag, a `float64` gain), as plain numbers
 * (bool: 0 or 1), or a 64-bit integer array's bigints.
 * The engine's tensors stay float32 or int32; the runtime makes the typed
 * array the model wants (a `BigInt64Array` for int64, half-float bits for
 * float16, an `Int16Array` for int16 …) only where it hands the feed to
 * onnxruntime.
 */
export interface TypedConstant {
  readonly location: 'constant';
  readonly type: ConstantType;
  readonly dims: readonly number[];
  /**
   * Row-major values, checked against `type` by whoever made it (see
   * `planFeeds`): plain numbers, or for an int64 (a uint64) the bigints
   * themselves in a `BigInt64Array` (a `BigUint64Array`): a NumPy array's
   * values past ±2^53, exactly.
   */
  readonly values: readonly number[] | BigInt64Array | BigUint64Array;
}

/** What a session takes as an input. */
export type Feed = Tensor | DeviceTensor | TypedConstant;
/** What a session returns: a CPU tensor, or a device tensor for outputs named in `deviceOutputs`. */
export type Fetched = Tensor | DeviceTensor;

/** How a session treats its outputs. */
export interface SessionOptions {
  /**
   * Outputs to keep on the device and return as `DeviceTensor`s (typically
   * the next step's weights); every other output comes back as a CPU `Tensor`.
   */
  readonly deviceOutputs?: readonly string[];
  /**
   * The session will be driven in loops of steps (`ModelSession.openLoop`):
   * a runtime may host it where a whole loop's steps run per message (a
   * model worker with threads of its own) rather than beside the engine.
   */
  readonly loops?: boolean;
}

/**
 * A loop of steps over one session, its carried tensors kept where the
 * session runs from its first step to its last: each step is fed the
 * constants, its own feeds and every carried input; its carried outputs
 * become the next step's carried inputs.
 */
export interface StepLoopPlan {
  /** Each step's `output` is fed as the next step's `input`. */
  readonly carried: readonly { readonly input: string; readonly output: string }[];
  /** The carried inputs' first values, by input name. */
  readonly initial: Readonly<Record<string, Tensor>>;
  /** Feeds that are the same every step (hyperparameters). */
  readonly constants: Readonly<Record<string, Tensor>>;
  /** Outputs read back after every step (a metric such as the loss): the first value of each. */
  readonly read: readonly string[];
  /**
   * Inputs that hold a whole dataset (`dataset.x`, `dataset.y` of a train
   * step built with `residentRows`), offered to stay where the session
   * reads them for the loop: where they fit (`StepLoop.resident`) they are
   * uploaded once to the device, or fed in place by a loop beside the
   * engine, and each step feeds only its row indices.
   */
  readonly resident?: Readonly<Record<string, Tensor>>;
}

/** One step's own feeds (its batch), or null for a step that runs nothing. */
export type LoopStepFeeds = Readonly<Record<string, Tensor>> | null;

/** What a loop's steps gave back. */
export interface StepLoopResult {
  /** Steps gone through, in order (fewer than asked only when cancelled). */
  readonly ran: number;
  /** Per output in `read`, its first value at each step gone through (NaN where a step ran nothing). */
  readonly values: Readonly<Record<string, Float32Array>>;
  /** Milliseconds the steps took where they ran (not counting the hop to get there). */
  readonly ms: number;
  /** Bytes that crossed between the CPU and the device for these steps (a device loop only). */
  readonly transfers?: TransferCounts;
  /**
   * The steps' feeds, handed back where their buffers had moved to another
   * thread (a model worker's loop): free to be filled again. Absent where
   * they never left.
   */
  readonly steps?: readonly LoopStepFeeds[];
}

/** How a device loop's graph capture went (graph-capture.ts): the node's log line says it. */
export interface GraphCaptureReport {
  /** Steps that ran as replays of the captured step. */
  readonly captured: number;
  /** Steps that ran uncaptured. */
  readonly uncaptured: number;
  /** Why the loop ran (or went on) uncaptured; absent while capture held. */
  readonly refused?: string;
}

/** A loop opened on a session; see `StepLoopPlan`. Close it on every exit. */
export interface StepLoop {
  /**
   * The work one call of steps should carry, ms (`LoopPace`'s target);
   * absent: the pace's default, sized to pay for a hop to a worker.
   */
  readonly messageMs?: number;
  /**
   * Calls worth having made and not yet answered: 2 where the steps run on
   * another thread (the next call's batches are gathered while that thread
   * works through one, and it starts on them as soon as it is done), 1
   * (the default) where they run on the caller's.
   */
  readonly ahead?: number;
  /** Whether the plan's `resident` inputs stay where the session reads them: each step then feeds its rows alone. */
  readonly resident?: boolean;
  /** Bytes that crossed to open the loop (weights, constants, the resident dataset; a device loop only). */
  readonly opened?: TransferCounts;
  /**
   * How graph capture went so far (a device loop whose runtime offers it);
   * null where it was never offered.
   */
  graphCapture?(): GraphCaptureReport | null;
  /**
   * Runs `steps` in order; a cancel stops it between two steps (or, where it
   * cannot be seen there, at the end of the call). The steps' tensors are
   * handed over: their buffers may be moved to where the session runs.
   */
  run(steps: readonly LoopStepFeeds[], signal: AbortSignal): Promise<StepLoopResult>;
  /** The carried inputs' current values (the trained weights), by input name. */
  carried(inputs: readonly string[]): Promise<Record<string, Tensor>>;
  close(): Promise<void>;
}

export interface ModelSession {
  /** The backend this session actually runs on. */
  readonly backend: Backend;
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  run(feeds: Readonly<Record<string, Feed>>): Promise<Record<string, Fetched>>;
  release(): Promise<void>;
  /**
   * Where a session opened with `loops` can run many steps per call: absent
   * where each step is its own `run`.
   */
  openLoop?(plan: StepLoopPlan): Promise<StepLoop>;
  /** Where the session runs, when not beside the engine (said in the node's log). */
  readonly host?: string;
}

/** What the engine knows of the device it runs on. */
export interface EngineInfo {
  /** The backend `auto` resolves to on this engine. */
  backend: Backend;
  /** The WebGPU adapter, when there is one. */
  adapter: AdapterInfo | null;
}

export interface AdapterInfo {
  vendor: string;
  architecture: string;
  isFallbackAdapter: boolean;
  /** The adapter's buffer limits in bytes, when known (they size the default device pool). */
  limits?: AdapterLimits;
  /** What else the adapter says of itself, for a run's fingerprint; absent where it was not read. */
  details?: AdapterDetails;
}

export interface AdapterDetails {
  device: string;
  description: string;
  /** Every feature the adapter offers. */
  features: readonly string[];
  /** The limits a run's fingerprint keeps (`fingerprintLimits` in core/run/fingerprint.ts), by WebGPU name. */
  limits: Readonly<Record<string, number>>;
}

export interface AdapterLimits {
  maxBufferSize: number;
  maxStorageBufferBindingSize: number;
}

export interface TensorRuntime {
  readonly info: EngineInfo;
  /** Bytes moved between the CPU and the device by every session, where the runtime counts them. */
  readonly transfers?: TransferLedger;
  /**
   * WebGPU sessions driven in loops run them on the device (`openLoop`), so
   * a model's `gatheringModel` (a step that gathers its rows) may be loaded.
   */
  readonly deviceLoops?: boolean;
  /**
   * Other sessions driven in loops run beside the engine and read a CPU
   * feed where it lies (onnxruntime-node), so their loops feed the whole
   * dataset each step at no cost and a model's `gatheringModel` may be
   * loaded: the rows are gathered in the session's native code, not copied
   * into a batch by the engine.
   */
  readonly hostLoopsGather?: boolean;
  /**
   * The most bytes of a dataset a device loop keeps on the device; default
   * `RESIDENT_DATASET_BYTES` (resident-dataset.ts, the rule the pool admits by).
   */
  readonly residentDatasetBytes?: number;
  /** The backend a node's choice runs on here (for the device pool it draws on); default `info.backend`. */
  backendFor?(choice: NodeBackend): Backend;
  /** `auto` follows the run; a forced backend that is missing fails with a clear error. */
  createSession(
    model: Uint8Array,
    backend: NodeBackend,
    options?: SessionOptions,
  ): Promise<ModelSession>;
}

export function float32(data: Float32Array, dims: readonly number[]): Tensor {
  return { type: 'float32', data, dims };
}

/** Whether a feed is a typed constant. */
export function isTypedConstant(value: Feed): value is TypedConstant {
  return (value as Partial<TypedConstant>).location === 'constant';
}

/** Whether a fed or fetched value stays on the device. */
export function isDeviceTensor(value: Feed): value is DeviceTensor {
  return (value as Partial<DeviceTensor>).location === 'device';
}

/** A CPU tensor as a device tensor that needs no download (the WASM case, and tests). */
export function hostDeviceTensor(tensor: Tensor): DeviceTensor {
  return {
    location: 'device',
    storage: 'cpu',
    type: tensor.type,
    dims: tensor.dims,
    read: () => Promise.resolve(tensor),
    dispose: () => undefined,
  };
}

/**
 * The CPU data of a feed, downloading a device tensor; a typed constant
 * reads as the engine's tensors do (int32 stays, any other type as float32).
 */
export async function readTensor(value: Feed): Promise<Tensor> {
  if (isTypedConstant(value))
    return value.type === 'int32'
      ? {
          type: 'int32',
          data: Int32Array.from(value.values as readonly number[]),
          dims: value.dims,
        }
      : float32(Float32Array.from(value.values, Number), value.dims);
  return isDeviceTensor(value) ? value.read() : value;
}

/**
 * Output `name` of a session run as a CPU tensor; throws when it is missing
 * or was kept on the device (ask for it without `deviceOutputs`).
 */
export function hostOutput(outputs: Readonly<Record<string, Fetched>>, name: string): Tensor {
  const value = outputs[name];
  if (value === undefined) throw new Error(`the session returned no output ${name}`);
  if (isDeviceTensor(value))
    throw new Error(
      `output ${name} stayed on the device; read() it or leave it out of deviceOutputs`,
    );
  return value;
}

/** Disposes every device tensor among `values`; CPU tensors need nothing. */
export function disposeAll(values: Iterable<Feed>): void {
  for (const value of values) if (isDeviceTensor(value)) value.dispose();
}

/** Describe an engine for a run record, e.g. "webgpu (nvidia ampere)". */
export function describeAdapter(adapter: AdapterInfo | null): string {
  if (!adapter) return 'none';
  const name = [adapter.vendor, adapter.architecture].filter(Boolean).join(' ') || 'unknown';
  return adapter.isFallbackAdapter ? `${name} (fallback)` : name;
}
