/**
 * What a node hands the program host for an MLP, declared once: its resident
 * model (a train step, or an inference graph) and the one request that runs
 * a node's program, with the loop's progress as the node's.
 *
 * Idea: every built-in MLP node names its models and its request after
 * itself (`<node>/train-step`, `<node>/inference`, request `<node>`), so the
 * pool view and the parity report read the same whichever node ran; keeping
 * those names and the resident-bytes estimate here keeps the nodes from
 * drifting apart. Trade-off: a node that shards its work (eval.accuracy)
 * builds its own requests and takes only the model from here.
 */
import { estimateMemory } from '../onnx/memory.ts';
import type { MlpInference, TrainStep } from '../onnx/mlp.ts';
import type { NodeBackend } from '../runtime/tensor-runtime.ts';
import { mlpTrainStepSession } from './mlp-steps.ts';
import {
  modelId,
  requestId,
  type ModelDef,
  type ProgramRequest,
  type ProgramStep,
} from './program.ts';
import type { TickReport } from './runner.ts';

/** The resident bytes of a loaded graph: its constants (weights baked in, shapes), at a batch of 1. */
function constantBytes(graph: Parameters<typeof estimateMemory>[0]): number {
  return estimateMemory(graph, { dims: { batch: 1 } }).constantBytes;
}

/**
 * `node`'s train-step model (`<node>/train-step`), resident for its training
 * loop: its session keeps the carried outputs (weights, optimizer state) on
 * the device between steps. `loops`: its loop asks for batches ahead, so the
 * runtime may host it where many steps run per call (`SessionOptions.loops`).
 * `gatheringStep`: the same step gathering its batch from the whole dataset
 * (`residentRows`), loaded instead where the loop keeps the dataset where
 * its session reads it (`loadsGatheringModel`).
 */
export function mlpTrainStepModel(
  node: string,
  step: TrainStep,
  backend: NodeBackend,
  options: { readonly loops?: boolean; readonly gatheringStep?: TrainStep } = {},
): ModelDef {
  return {
    id: modelId(`${node}/train-step`),
    label: `${node} train step`,
    model: step.model,
    ...(options.gatheringStep && { gatheringModel: options.gatheringStep.model }),
    backend,
    session: { ...mlpTrainStepSession(step), ...(options.loops === true && { loops: true }) },
    residentBytes: constantBytes(step.graph),
  };
}

/** `node`'s inference model (`<node>/inference`), resident for its evaluation. */
export function mlpInferenceModel(
  node: string,
  inference: MlpInference,
  backend: NodeBackend,
): ModelDef {
  return {
    id: modelId(`${node}/inference`),
    label: `${node} inference`,
    model: inference.model,
    backend,
    residentBytes: constantBytes(inference.graph),
  };
}

/** `node`'s one request (named after the node): `step`, cancelled with the node. */
export function nodeRequest(node: string, step: ProgramStep, signal: AbortSignal): ProgramRequest {
  return { id: requestId(node), program: { steps: [step] }, signal };
}

/**
 * A job's `onTick` that reports the loop `loopName`'s units as the node's
 * progress, with the loop's rate once the runner has measured one. A tick
 * comes after a unit only while the request is still in the loop, so the
 * loop's end is reported from the first tick past it: every unit done,
 * unless the request failed or was cancelled there.
 */
export function loopProgress(
  loopName: string,
  progress: (done: number, total: number, perSecond: number | null) => void,
): (tick: TickReport) => void {
  let last: { done: number; total: number; perSecond: number | null } | null = null;
  return (tick) => {
    const request = tick.requests[0];
    if (request === undefined) return;
    if (request.step === loopName && request.units > 0) {
      last = { done: request.unitsDone, total: request.units, perSecond: request.unitsPerSecond };
      progress(last.done, last.total, last.perSecond);
      return;
    }
    if (last === null || last.done >= last.total) return;
    if (request.state === 'error' || request.state === 'cancelled') return;
    last = { ...last, done: last.total };
    progress(last.total, last.total, last.perSecond);
  };
}
