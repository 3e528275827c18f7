/**
 * The program model: what a model node runs, as plain data and callbacks.
 *
 * Idea (docs/architecture.md, "The three ideas"): a model node's work is a
 * program — a list of one-shot *component* steps and model *loops* of K
 * units (a training step, a denoising step, a decode step) — run by one
 * runner over model instances kept resident on the device. A step names the
 * models it uses and says its memory up front (a loop's resident bytes, each
 * unit's peak), so the runner can admit it before it runs; it touches
 * sessions and values only through its context, so it cannot tell whether it
 * runs alone or interleaved with other requests. Trade-off: steps are
 * callbacks, not serialisable data; a flow's node builds its program in the
 * engine, where its inputs are.
 */
import type {
  ModelSession,
  NodeBackend,
  SessionOptions,
  Tensor,
} from '../runtime/tensor-runtime.ts';

/** A resident model's id, unique within a runner. */
export type ModelId = string & { readonly __brand: 'ModelId' };
/** A request's id, unique within one run of the runner. */
export type RequestId = string & { readonly __brand: 'RequestId' };

export const modelId = (id: string): ModelId => id as ModelId;
export const requestId = (id: string): RequestId => id as RequestId;

/** A model the runner loads once, on first use, and keeps until it closes. */
export interface ModelDef {
  readonly id: ModelId;
  /** Shown to people; defaults to the id. */
  readonly label?: string;
  /** ONNX model bytes. */
  readonly model: Uint8Array;
  /**
   * Model bytes loaded instead of `model` where its loop keeps the whole
   * dataset where the session reads it (`loadsGatheringModel`: on the
   * device, or in host memory that onnxruntime-node reads in place): a
   * train step that gathers its batch from that dataset by row index.
   */
  readonly gatheringModel?: Uint8Array;
  readonly backend?: NodeBackend;
  /** How its session treats outputs, e.g. which stay on the device between steps. */
  readonly session?: SessionOptions;
  /** Bytes the loaded model holds on the device (its constants, baked weights). */
  readonly residentBytes: number;
}

/** A value a step hands to later steps and to the request's result. */
export type ProgramValue = Tensor | number;

/** What a step sees of the runner. */
export interface StepContext {
  readonly request: RequestId;
  readonly step: string;
  /** The request's cancel scope. */
  readonly signal: AbortSignal;
  /** The resident session of a model the step declared. */
  session(model: ModelId): ModelSession;
  /** A value an earlier step of this request output; throws if there is none. */
  read(name: string): ProgramValue;
  /** Sets an output of the request (later steps may read it). */
  output(name: string, value: ProgramValue): void;
  /** Appends a point to one of the request's metric series. */
  emit(metric: string, value: number): void;
}

/** A one-shot step: one unit. */
export interface ComponentStep {
  readonly kind: 'component';
  readonly name: string;
  readonly models: readonly ModelId[];
  /** Bytes of activations while it runs, admitted before it runs. */
  readonly peakBytes: number;
  run(ctx: StepContext): Promise<void> | void;
}

/** What a loop runs once started. */
export interface LoopBody {
  /** Runs unit `index` (0-based). */
  unit(index: number): Promise<void> | void;
  /**
   * Asked after each unit: true ends the loop before its K units — there is
   * nothing left to do (a stream ran dry, every episode ended) — and it goes
   * on to `end` as after its last unit. Default never.
   */
  done?(): boolean;
  /** After the last unit, when every unit succeeded: write outputs. */
  end?(): Promise<void> | void;
  /** On every exit (success, error, cancel): let go of what `start` made. */
  dispose?(): Promise<void> | void;
}

/** K units over resident models, one unit per tick. */
export interface LoopStep {
  readonly kind: 'loop';
  readonly name: string;
  readonly models: readonly ModelId[];
  /** K, the number of units (at most, when the body can be `done` early). */
  readonly units: number;
  /** Bytes the loop keeps resident from its first unit to its last (weights, optimizer state). */
  readonly residentBytes: number;
  /** Bytes of activations of one unit, admitted before each unit. */
  readonly peakBytes: number;
  /**
   * A dataset the loop offers to keep on the device: its bytes are reserved
   * with the loop's state wherever it will stay there (loop-dataset.ts).
   */
  readonly dataset?: LoopDataset;
  /** Called once, after the resident bytes are reserved. */
  start(ctx: StepContext): Promise<LoopBody> | LoopBody;
}

/**
 * A loop's dataset that a train step gathers its batches from (one built
 * with `residentRows`, loaded as `model`'s `gatheringModel`): its bytes.
 */
export interface LoopDataset {
  /** The model whose session opens the loop. */
  readonly model: ModelId;
  /** Every row's features. */
  readonly features: number;
  /** Every row's targets. */
  readonly labels: number;
  /** One step's row indices (the index buffer). */
  readonly rows: number;
}

export type ProgramStep = ComponentStep | LoopStep;

/** A list of steps, run in order. */
export interface Program {
  readonly steps: readonly ProgramStep[];
}

/** A program to run, with its own cancel scope. */
export interface ProgramRequest {
  readonly id: RequestId;
  readonly program: Program;
  readonly signal?: AbortSignal;
}

/** A one-shot step; `models` default none, `peakBytes` default 0. */
export function component(
  step: Omit<ComponentStep, 'kind' | 'models' | 'peakBytes'> &
    Partial<Pick<ComponentStep, 'models' | 'peakBytes'>>,
): ComponentStep {
  return { kind: 'component', models: [], peakBytes: 0, ...step };
}

/** A loop; `models` default none, `residentBytes` and `peakBytes` default 0. */
export function loop(
  step: Omit<LoopStep, 'kind' | 'models' | 'residentBytes' | 'peakBytes'> &
    Partial<Pick<LoopStep, 'models' | 'residentBytes' | 'peakBytes'>>,
): LoopStep {
  return { kind: 'loop', models: [], residentBytes: 0, peakBytes: 0, ...step };
}
