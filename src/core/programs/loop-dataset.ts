/**
 * A loop's dataset in the device pool: the bytes it holds on the device
 * while the loop runs, wherever the loop will keep it there.
 *
 * Idea: a train loop on WebGPU uploads its whole dataset once and feeds
 * each step its row indices, where the dataset fits (resident-dataset.ts).
 * Those bytes are held from the loop's first unit to its last, like its
 * weights, so the runner reserves them with the loop's state — by the same
 * rule and the same cap the runtime keeps the dataset by, decided before
 * the loop opens from what the runtime says of itself. Trade-off: the index
 * buffer is counted at the loop's batch size for the whole loop, though a
 * step's rows are fed anew each step.
 */
import { datasetStaysResident, residentDatasetLimits } from '../runtime/resident-dataset.ts';
import type { TensorRuntime } from '../runtime/tensor-runtime.ts';
import type { LoopDataset, ModelDef } from './program.ts';

/** What the dataset's share of a loop's reservation is called (the pool view, messages). */
export const DATASET_SHARE = 'resident dataset (features, labels, row indices)';

/**
 * Whether `def` loads its `webgpuModel` on `runtime`: it has one, the
 * runtime runs device loops, and the model's backend resolves to WebGPU.
 */
export function loadsWebgpuModel(def: ModelDef, runtime: TensorRuntime): boolean {
  if (def.webgpuModel === undefined || runtime.deviceLoops !== true) return false;
  try {
    return (runtime.backendFor?.(def.backend ?? 'auto') ?? runtime.info.backend) === 'webgpu';
  } catch {
    // A backend this engine lacks: the model fails to load, with its own error.
    return false;
  }
}

/**
 * Bytes `dataset` holds on the device while its loop runs over `def` on
 * `runtime`: its features, labels and one step's row indices where the loop
 * runs on the device (a WebGPU session driven in loops) and the dataset
 * fits there; else 0 (each step uploads its batch, counted in its peak).
 */
export function datasetDeviceBytes(
  dataset: LoopDataset,
  def: ModelDef,
  runtime: TensorRuntime,
): number {
  if (!loadsWebgpuModel(def, runtime) || def.session?.loops !== true) return 0;
  const stays = datasetStaysResident(
    [dataset.features, dataset.labels],
    residentDatasetLimits(runtime),
  );
  return stays ? dataset.features + dataset.labels + dataset.rows : 0;
}
