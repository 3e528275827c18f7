/** What the GPU bench page offers the Playwright side, on `window.flowbenchGpu`. */
import type { TrainLoopResult } from '../lib/train-loop';
import type { ModelChoice } from '../lib/train-models';

/** The WebGPU adapter the page got, as it describes itself. */
export interface AdapterReport {
  /** Whether `requestAdapter()` gave one at all. */
  readonly found: boolean;
  readonly vendor: string;
  readonly architecture: string;
  readonly device: string;
  readonly description: string;
  /** What the adapter says (`info.isFallbackAdapter`). */
  readonly isFallbackAdapter: boolean;
  /** Ours: the adapter says so, or it is SwiftShader (a CPU rasteriser behind the WebGPU API). */
  readonly fallback: boolean;
  readonly features: readonly string[];
}

/** One train row, run in a fresh worker (onnxruntime's thread count is fixed once it starts). */
export interface TrainRequest {
  readonly backend: 'webgpu' | 'wasm';
  /** onnxruntime-web's WASM threads (the WebGPU build also runs some ops on them). */
  readonly threads: number;
  /**
   * `upload`: CPU batches, copied to the device by onnxruntime every step (the
   * product's runner today). `resident`: uploaded once before the loop, each
   * step feeds a batch already on the device (WebGPU only).
   */
  readonly batches: 'upload' | 'resident';
  readonly model: ModelChoice;
  readonly seconds: number;
  readonly warmSteps: number;
  /** The fewest timed steps, whatever the window's length. */
  readonly minSteps: number;
  readonly readEvery: number;
}

export interface TrainReport extends TrainLoopResult {
  /** Bytes the page wrote to the GPU in the timed window (`writeBuffer`, buffers mapped at creation). */
  readonly uploadBytes: number;
  /** Bytes it read back (`mapAsync` for reading). */
  readonly downloadBytes: number;
}

/**
 * The product's WebGPU device loop (`OrtRuntime.openLoop`): the dataset on
 * the device, each step fed its row indices, the losses read back once per
 * call — with graph capture or without.
 */
export interface LoopRequest {
  readonly model: ModelChoice;
  /** Default momentum (the other rows'); Adam also feeds each step its step count. */
  readonly optimizer?: 'momentum' | 'adam';
  readonly graphCapture: boolean;
  /** Steps per call of the loop (the program runner paces its calls at ~75 ms of work). */
  readonly perCall: number;
  readonly seconds: number;
  readonly warmSteps: number;
  /** The fewest timed steps, whatever the window's length. */
  readonly minSteps: number;
  /** At most this many timed steps (a short check runs a fixed number). */
  readonly maxSteps?: number;
}

/** How the capture went, as the loop reports it (`StepLoop.graphCapture`). */
export interface LoopCapture {
  readonly captured: number;
  readonly uncaptured: number;
  readonly refused?: string;
}

export interface LoopReport {
  readonly steps: number;
  readonly ms: number;
  readonly stepsPerSecond: number;
  readonly gflops: number;
  /** Every step's loss, the warm steps first. */
  readonly losses: readonly number[];
  /** Bytes written to and read from the GPU in the timed window, counted at the WebGPU API. */
  readonly uploadBytes: number;
  readonly downloadBytes: number;
  /** The same window as the loop's own ledger counted it. */
  readonly ledgerUploadBytes: number;
  readonly ledgerDownloadBytes: number;
  /** Null where the runtime did not offer capture. */
  readonly capture: LoopCapture | null;
}

/** The matmuls of the train step alone on onnxruntime-web WASM: the kernel's ceiling. */
export interface CeilingRequest {
  readonly threads: number;
  readonly hidden: number;
  readonly batch: number;
  readonly seconds: number;
}

export interface CeilingReport {
  readonly runsPerSecond: number;
  readonly gflops: number;
  readonly runs: number;
}

export type WorkerRequest =
  | { readonly kind: 'train'; readonly request: TrainRequest }
  | { readonly kind: 'loop'; readonly request: LoopRequest }
  | { readonly kind: 'ceiling'; readonly request: CeilingRequest };

export type WorkerReply =
  | { readonly ok: true; readonly report: TrainReport | LoopReport | CeilingReport }
  | { readonly ok: false; readonly error: string };

export interface GpuBench {
  readonly hardwareConcurrency: number;
  readonly crossOriginIsolated: boolean;
  adapter(): Promise<AdapterReport>;
  train(request: TrainRequest): Promise<TrainReport>;
  loop(request: LoopRequest): Promise<LoopReport>;
  ceiling(request: CeilingRequest): Promise<CeilingReport>;
}

export const GPU_BENCH_GLOBAL = 'flowbenchGpu';
