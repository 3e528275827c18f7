/**
 * A next-state world model: an MLP that reads the last `contextLength`
 * observations and actions and predicts the change to the next observation.
 * Predicting the change rather than the state itself lets an untrained model
 * start as "nothing moves", a fair baseline, and keeps targets small.
 *
 * Input layout, oldest step first: `[o(t−c+1), a(t−c+1), …, o(t), a(t)]`;
 * output: `o(t+1) − o(t)`. Training rows are teacher-forced from a context
 * window (true observations as inputs); the evaluation feeds the model its
 * own predictions, which is what multi-step error measures.
 */
import { expectTrainedModel, type TrainedModel } from '../catalog/values';
import type { SimulatorKind } from '../data/environment-spec';
import type { ContextChunk } from '../data/episode';
import { FlowbenchError } from '../errors';

/** What a world model reads and predicts. */
export interface WorldModelShape {
  readonly simulator: SimulatorKind;
  readonly contextLength: number;
  readonly observationSize: number;
  readonly actionSize: number;
}

/** A trained model value that knows it is a world model of `shape`. */
export type WorldModelValue = TrainedModel & { readonly worldModel: WorldModelShape };

export function worldModelInputSize(shape: WorldModelShape): number {
  return shape.contextLength * (shape.observationSize + shape.actionSize);
}

/**
 * Write the model input that predicts step `end` — the `contextLength` steps
 * before it — from row-major `observations` and `actions`, into `out` at `at`.
 */
export function writeWorldModelInput(
  shape: WorldModelShape,
  observations: Float32Array,
  actions: Float32Array,
  end: number,
  out: Float32Array,
  at: number,
): void {
  const { contextLength: c, observationSize: O, actionSize: A } = shape;
  let k = at;
  for (let t = end - c; t < end; t++) {
    out.set(observations.subarray(t * O, (t + 1) * O), k);
    k += O;
    out.set(actions.subarray(t * A, (t + 1) * A), k);
    k += A;
  }
}

/**
 * Teacher-forced rows of a batch of windows, one per predicted step whose
 * action and next observation exist (masked steps are left out). Returns
 * the number of rows written; `x` and `y` must hold `chunks × predictionLength` rows.
 */
export function fillWorldModelRows(
  shape: WorldModelShape,
  chunks: readonly ContextChunk[],
  x: Float32Array,
  y: Float32Array,
): number {
  const { contextLength: c, observationSize: O } = shape;
  const inputSize = worldModelInputSize(shape);
  let rows = 0;
  for (const chunk of chunks) {
    for (let k = 0; k < chunk.window.predictionLength; k++) {
      const last = k + c - 1; // the newest step of the context
      if (chunk.actionMask[last] !== 1 || chunk.observationMask[last + 1] !== 1) continue;
      writeWorldModelInput(shape, chunk.observations, chunk.actions, last + 1, x, rows * inputSize);
      for (let d = 0; d < O; d++)
        y[rows * O + d] =
          chunk.observations[(last + 1) * O + d]! - chunk.observations[last * O + d]!;
      rows++;
    }
  }
  return rows;
}

export function expectWorldModel(value: unknown, port: string): WorldModelValue {
  const model = expectTrainedModel(value, port);
  const shape = (model as Partial<WorldModelValue>).worldModel;
  if (!shape)
    throw new FlowbenchError('node-input', {
      problem: `input '${port}' is not a world model: connect the model output of a train.world_model node`,
    });
  return model as WorldModelValue;
}
