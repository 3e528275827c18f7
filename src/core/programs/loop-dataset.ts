/**
 * A loop's dataset in the device pool: the bytes it holds on the device
 * while the loop runs, wherever the loop will keep it there.
 *
 * Idea: a train loop on WebGPU uploads its whole dataset once and feeds
 * each step its row indices, where the dataset fits (resident-dataset.ts).
 * Those bytes are held from the loop's first unit to its last, like its
 * weights, so the runner reserves them with the loop's state — by the same
 * rule and the same cap the runtime keeps the dataset by, decided before
 * the loop opens from what the runtime says of itself. A loop beside the
 * engine whose session reads host memory in place (onnxruntime-node) feeds
 * the dataset where it already lies: it gathers too, and holds nothing
 * more. Trade-off: the index buffer is counted at the loop's batch size
 * for the whole loop, though a step's rows are fed anew each step.
 */
import { datasetStaysResident, residentDatasetLimits } from '../runtime/resident-dataset.ts';
import type { Backend, TensorRuntime } from '../runtime/tensor-runtime.ts';
import type { LoopDataset, ModelDef } from './program.ts';

/** What the dataset's share of a loop's reservation is called (the pool view, messages). */
export const DATASET_SHARE = 'resident dataset (features, labels, row indices)';

/** The backend `def`'s session runs on here; null where this engine lacks it (the load fails with its own error). */
function backendOf(def: ModelDef, runtime: TensorRuntime): Backend | null {
  try {
    return runtime.backendFor?.(def.backend ?? 'auto') ?? runtime.info.backend;
  } catch {
    return null;
  }
}

/**
 * Whether `def` loads its `gatheringModel` on `runtime`: it has one and is
 * driven in loops, and the loop keeps the dataset where its session reads
 * it: on the device (WebGPU, where the runtime runs device loops), or in
 * the engine's memory, read where it lies (any other backend, where the
 * runtime's loops beside the engine gather, `TensorRuntime.hostLoopsGather`).
 */
export function loadsGatheringModel(def: ModelDef, runtime: TensorRuntime): boolean {
  if (def.gatheringModel === undefined || def.session?.loops !== true) return false;
  const backend = backendOf(def, runtime);
  if (backend === null) return false;
  return backend === 'webgpu' ? runtime.deviceLoops === true : runtime.hostLoopsGather === true;
}

/**
 * Bytes `dataset` holds on the device while its loop runs over `def` on
 * `runtime`: its features, labels and one step's row indices where the loop
 * runs on the device (a WebGPU session driven in loops) and the dataset
 * fits there; else 0 (each step uploads its batch, counted in its peak; a
 * loop that gathers from host memory reads the dataset where it already is).
 */
export function datasetDeviceBytes(
  dataset: LoopDataset,
  def: ModelDef,
  runtime: TensorRuntime,
): number {
  if (!loadsGatheringModel(def, runtime) || backendOf(def, runtime) !== 'webgpu') return 0;
  const stays = datasetStaysResident(
    [dataset.features, dataset.labels],
    residentDatasetLimits(runtime),
  );
  return stays ? dataset.features + dataset.labels + dataset.rows : 0;
}
