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
  | { readonly kind: 'ceiling'; readonly request: CeilingRequest };

export type WorkerReply =
  | { readonly ok: true; readonly report: TrainReport | CeilingReport }
  | { readonly ok: false; readonly error: string };

export interface GpuBench {
  readonly hardwareConcurrency: number;
  readonly crossOriginIsolated: boolean;
  adapter(): Promise<AdapterReport>;
  train(request: TrainRequest): Promise<TrainReport>;
  ceiling(request: CeilingRequest): Promise<CeilingReport>;
}

export const GPU_BENCH_GLOBAL = 'flowbenchGpu';
