/**
 * Whether a training loop keeps its dataset on the device: the one rule the
 * runtime decides by when it opens a device loop (`DeviceOps.fits`) and the
 * program runner admits by (the dataset's bytes booked with the loop).
 *
 * Idea: a WebGPU device loop uploads the whole dataset once and feeds each
 * step its row indices, where the dataset (features and targets together)
 * is at most a cap and each of its tensors fits one storage binding (the
 * adapter's `maxStorageBufferBindingSize`; WebGPU's default where the
 * adapter does not say). One rule in one place, so the pool never admits a
 * loop for less than it will hold. Trade-off: the cap is fixed, not a share
 * of the pool's budget, so a dataset under the cap in a small pool fails
 * admission with its numbers rather than falling back to batches per step.
 */
import type { EngineInfo } from './tensor-runtime.ts';

/** The most bytes a device loop keeps resident as its dataset, by default. */
export const RESIDENT_DATASET_BYTES = 256 * 1024 * 1024;

/** One storage binding's bytes where the adapter gives no limits (WebGPU's default). */
export const DEFAULT_BINDING_BYTES = 128 * 1024 * 1024;

/** What a dataset must fit to stay on the device. */
export interface ResidentDatasetLimits {
  /** The most bytes of a dataset (features and targets together). */
  readonly cap: number;
  /** The most bytes of each of its tensors (one storage binding). */
  readonly binding: number;
}

/** The limits a runtime keeps a dataset on the device under. */
export function residentDatasetLimits(runtime: {
  readonly info: EngineInfo;
  readonly residentDatasetBytes?: number;
}): ResidentDatasetLimits {
  return {
    cap: runtime.residentDatasetBytes ?? RESIDENT_DATASET_BYTES,
    binding: runtime.info.adapter?.limits?.maxStorageBufferBindingSize ?? DEFAULT_BINDING_BYTES,
  };
}

/** Whether a dataset of tensors of `tensorBytes` stays on the device under `limits`. */
export function datasetStaysResident(
  tensorBytes: readonly number[],
  limits: ResidentDatasetLimits,
): boolean {
  let total = 0;
  for (const bytes of tensorBytes) {
    if (bytes > limits.binding) return false;
    total += bytes;
  }
  return total <= limits.cap;
}
