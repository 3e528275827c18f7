/**
 * `train.world_model`: trains a next-state world model on context windows
 * drawn from a live data source while its producers keep generating. Each
 * step asks the flow controller for a batch (which may wait for a refill,
 * for a batch's quota, or for the planned rate — every wait is recorded),
 * turns the windows into teacher-forced rows (observations and actions in,
 * the next observation's change out) and runs one ONNX train step with mean
 * squared error on the run's backend. The training is a program — one loop
 * of up to `steps` units over the resident train-step model, as for
 * `train.classifier` — so the device pool admits it before it starts, the
 * weights and the optimizer state stay on the device between steps, only the
 * loss is read back each step, and a cancel stops it at the next step.
 *
 * Training ends after `steps` steps, or earlier when the data engine will
 * never fund a complete batch again (a production ceiling was reached).
 * A parity check runs the loop twice; the batches of the first pass are
 * kept and given to the second, since the live source never repeats itself.
 * As with `train.classifier`, the trained model keeps its optimizer state,
 * and a trained world model fed in with the same optimizer resumes it.
 */
import { backendParam } from './backend-param';
import { defineNodeKind, type NodeContext } from '../catalog/kind';
import { expectMlp, expectModel } from '../catalog/values';
import { float32 } from '../runtime/tensor-runtime';
import { ContextReader } from '../live/context-reader';
import { expectContextWindows, type ContextWindows } from '../live/live-source';
import {
  fillWorldModelRows,
  worldModelInputSize,
  type WorldModelShape,
  type WorldModelValue,
} from '../live/world-model';
import {
  buildMlpInference,
  buildMlpTrainStep,
  initMlpWeights,
  mlpOptimizers,
  resumeOptimizerState,
  type MlpSpec,
} from '../onnx/mlp';
import {
  loopProgress,
  mlpTrainLoop,
  mlpTrainStepModel,
  nodeRequest,
  trainedOptimizerState,
  trainedWeights,
  type LoopStep,
  type MlpBatch,
} from '../programs';
import { createRandom } from '../random';
import { FlowbenchError } from '../errors';

/** Name of the training loop in the program (and its metrics and outputs). */
const LOOP = 'train';

export const trainWorldModel = defineNodeKind({
  kind: 'train.world_model',
  // 2: the trained model keeps its optimizer state, and a trained one fed in resumes it.
  // 3: that state's denormal values are made zero each step (mlp-optim.ts).
  version: 3,
  // Never cached: it trains on windows a paced data engine serves.
  cache: 'never',
  title: 'Train world model',
  category: 'train',
  description:
    'Trains a model to predict the next observation from the last observations and actions, on context windows sampled from a live data source, with mean squared error. The loss streams out as it falls.',
  params: {
    steps: { type: 'int', default: 300, min: 1, max: 1_000_000, description: 'Training steps.' },
    optimizer: {
      type: 'enum',
      options: mlpOptimizers,
      default: 'adam',
      description: 'Update rule: sgd, momentum (μ 0.9) or adam (β 0.9, 0.999).',
    },
    lr: { type: 'number', default: 0.003, min: 0, max: 10, description: 'Learning rate.' },
    log_every: {
      type: 'int',
      default: 5,
      min: 1,
      max: 100_000,
      description: 'Emit the mean loss of every this many steps.',
    },
    seed: { type: 'int', default: 0, min: 0, description: 'Seed of the weight init.' },
    backend: backendParam('Where the steps run'),
  },
  inputs: [
    { name: 'model', type: 'model', description: 'The architecture to train (an MLP).' },
    { name: 'windows', type: 'windows', description: 'Context windows from a live source.' },
  ],
  outputs: [
    { name: 'loss', type: 'number', stream: true, description: 'Mean training loss, streamed.' },
    { name: 'model', type: 'model', description: 'The trained world model.' },
  ],
  async execute(ctx) {
    const { steps, optimizer, lr, log_every, seed, backend } = ctx.params;
    const model = expectMlp(expectModel(ctx.inputs.model, 'model'), 'model');
    const windows = expectContextWindows(ctx.inputs.windows, 'windows');
    const { environment } = windows.source;
    const shape: WorldModelShape = {
      simulator: environment.simulator,
      contextLength: windows.window.contextLength,
      observationSize: environment.observationSize,
      actionSize: environment.actionSize,
    };
    const spec: MlpSpec = {
      inputSize: worldModelInputSize(shape),
      hidden: model.hidden,
      outputSize: shape.observationSize,
      activation: model.activation,
    };
    if (
      model.weights &&
      (model.inputSize !== spec.inputSize || model.outputSize !== spec.outputSize)
    )
      throw new FlowbenchError('node-input', {
        problem: `input 'model' has weights for ${model.inputSize} inputs and ${model.outputSize} outputs, but this world model needs ${spec.inputSize} and ${spec.outputSize}: connect an untrained MLP`,
      });
    const initial = model.weights ?? initMlpWeights(spec, createRandom(seed));
    // A trained world model goes on with its optimizer's state, when this optimizer made it.
    const resumed = model.weights
      ? resumeOptimizerState(optimizer, model.weights.layout, model.optimizerState)
      : null;
    if (resumed?.log) ctx.log(resumed.log);
    const step = buildMlpTrainStep(spec, { optimizer, loss: 'mse' });
    const trainStep = mlpTrainStepModel(ctx.node, step, backend);
    const id = trainStep.id;
    const source = liveBatches(ctx, windows, shape, spec);
    const loop = mlpTrainLoop({
      name: LOOP,
      model: id,
      step,
      units: steps,
      batchSize: windows.batchSize * windows.window.predictionLength,
      hyperparameters: { lr, momentum: 0.9 },
      initialWeights: initial,
      ...(resumed?.state && { initialState: resumed.state }),
      stateOutput: `${LOOP}.state`,
      batch: (index) => source.batch(index),
    });
    const watched: LoopStep = {
      ...loop,
      start(sctx) {
        ctx.log(
          `training on ${sctx.session(id).backend}: up to ${steps} steps of ${windows.batchSize} windows (${windows.window.contextLength} context + ${windows.window.predictionLength} predicted steps)`,
        );
        return loop.start(sctx);
      },
    };
    let lossSum = 0;
    let lossCount = 0;
    let trained = 0;
    const report = await ctx.programs.run({
      node: ctx.node,
      backend,
      models: [trainStep],
      requests: [nodeRequest(ctx.node, watched, ctx.signal)],
      onTick: loopProgress(LOOP, (done, total, perSecond) =>
        ctx.progress(done, total, perSecond ?? undefined),
      ),
      onEmit(_request, metric, value) {
        if (metric !== `${LOOP}.loss`) return;
        trained++;
        lossSum += value;
        lossCount++;
        if (lossCount === log_every || source.index === steps - 1) {
          ctx.emit('loss', lossSum / lossCount);
          lossSum = 0;
          lossCount = 0;
        }
      },
    });
    const result = report.results[0]!;
    // The source's own error (a producer that failed), as the source said it.
    if (result.status !== 'ok')
      throw source.failure ?? new Error(result.error?.message ?? `training ended ${result.status}`);
    if (lossCount > 0) ctx.emit('loss', lossSum / lossCount);
    if (trained === 0)
      throw new Error(
        'The data engine never funded a complete batch: raise max_generated_episodes or lower batch_size',
      );
    const weights = trainedWeights(result.outputs, `${LOOP}.weights`, initial);
    ctx.artifact('model', buildMlpInference(spec, weights).model, 'application/onnx');
    const trainedModel: WorldModelValue = {
      ...model,
      inputSize: spec.inputSize,
      outputSize: spec.outputSize,
      weights,
      optimizerState: trainedOptimizerState(
        result.outputs,
        `${LOOP}.state`,
        optimizer,
        initial.layout,
      ),
      worldModel: shape,
    };
    ctx.log(`trained ${trained} steps`);
    ctx.emit('model', trainedModel);
  },
});

/** The batches of a training, read from the live source as its units ask for them. */
interface LiveBatches {
  batch(index: number): Promise<MlpBatch>;
  /** The unit last asked for. */
  readonly index: number;
  /** What reading the source threw, if it did. */
  readonly failure: Error | null;
}

/**
 * Teacher-forced batches from the live source, one per unit: `skip` when
 * every window of a batch was masked out, `end` once the data engine will
 * fund no complete batch again. The rows go into one pair of buffers reused
 * from unit to unit (a session copies its feeds in before its run resolves),
 * unless the host replays: then each batch keeps buffers of its own, for the
 * later passes.
 */
function liveBatches(
  ctx: NodeContext<unknown>,
  windows: ContextWindows,
  shape: WorldModelShape,
  spec: MlpSpec,
): LiveBatches {
  const reader = new ContextReader(windows, ctx.signal);
  const rowsMax = windows.batchSize * windows.window.predictionLength;
  const kept: MlpBatch[] | null = ctx.programs.replays === true ? [] : null;
  let x = new Float32Array(rowsMax * spec.inputSize);
  let y = new Float32Array(rowsMax * spec.outputSize);
  const state = { index: -1, failure: null as Error | null };
  return {
    get index() {
      return state.index;
    },
    get failure() {
      return state.failure;
    },
    async batch(index) {
      state.index = index;
      const again = kept?.[index];
      if (again !== undefined) return again;
      let chunks;
      try {
        chunks = await reader.next();
      } catch (error) {
        state.failure = error instanceof Error ? error : new Error(String(error));
        throw error;
      }
      let batch: MlpBatch;
      if (!chunks) {
        ctx.log(`stopped after ${index} steps: the data engine will fund no more complete batches`);
        batch = 'end';
      } else {
        if (kept !== null && index > 0) {
          x = new Float32Array(rowsMax * spec.inputSize);
          y = new Float32Array(rowsMax * spec.outputSize);
        }
        const rows = fillWorldModelRows(shape, chunks, x, y);
        // Every window masked out: nothing to learn from.
        batch =
          rows === 0
            ? 'skip'
            : {
                x: float32(x.subarray(0, rows * spec.inputSize), [rows, spec.inputSize]),
                y: float32(y.subarray(0, rows * spec.outputSize), [rows, spec.outputSize]),
              };
      }
      kept?.push(batch);
      return batch;
    },
  };
}
