/**
 * `train.classifier`: trains a model on a dataset with an ONNX train-step
 * graph (forward, backward, loss and the optimizer update are all ONNX ops,
 * weights in → updated weights out), since onnxruntime-web has no training
 * API. The training is a program — one loop of `steps` units over the
 * resident train-step model — run by the engine's program runner, so the
 * device pool admits it before it starts, its weights stay on the device
 * between steps, and a cancel stops it at the next step. The loss streams
 * out as it falls.
 */
import { backendParam } from './backend-param';
import { defineNodeKind, type NodeContext } from '../catalog/kind';
import type { ParamValues } from '../catalog/params';
import { standardiseForTraining } from '../catalog/standardise';
import {
  carriedFrom,
  expectDataset,
  expectModel,
  type Dataset,
  type ModelValue,
} from '../catalog/values';
import { FlowbenchError } from '../errors';
import type { Backend, NodeBackend } from '../runtime/tensor-runtime';
import { buildMlpInference, buildMlpTrainStep, initMlpWeights, mlpOptimizers } from '../onnx/mlp';
import type { MlpSpec, MlpWeights } from '../onnx/mlp-spec';
import {
  deviceFedUnitsOutput,
  gpuFedUnitsOutput,
  mlpTrainLoop,
  mlpTrainStepModel,
  nodeRequest,
  trainedWeights,
  type LoopStep,
  type RequestResult,
} from '../programs';
import { createRandom } from '../random';
import { classifierBatches } from './classifier-batches';

const params = {
  steps: { type: 'int', default: 200, min: 1, max: 1_000_000, description: 'Training steps.' },
  batch_size: { type: 'int', default: 64, min: 1, max: 65_536, description: 'Rows per step.' },
  optimizer: {
    type: 'enum',
    options: mlpOptimizers,
    default: 'momentum',
    description: 'The update rule: plain SGD, SGD with momentum, or Adam.',
  },
  lr: { type: 'number', default: 0.1, min: 0, max: 10, description: 'Learning rate.' },
  momentum: {
    type: 'number',
    default: 0.9,
    min: 0,
    max: 0.999,
    description: 'Momentum coefficient (the momentum optimizer only); 0 is plain SGD.',
  },
  log_every: {
    type: 'int',
    default: 10,
    min: 1,
    max: 100_000,
    description: 'Emit the mean loss of every this many steps.',
  },
  seed: { type: 'int', default: 0, min: 0, description: 'Seed of weight init and batch order.' },
  backend: backendParam('Where the steps run'),
} as const;

type TrainContext = NodeContext<ParamValues<typeof params>>;

/** Name of the training loop in the program (and its metrics and outputs). */
const LOOP = 'train';

export const trainClassifier = defineNodeKind({
  kind: 'train.classifier',
  title: 'Train classifier',
  category: 'train',
  description:
    'Trains a model with mini-batch SGD, SGD with momentum or Adam on softmax cross-entropy, as a program over a resident train-step model. The loss streams out every few steps.',
  params,
  inputs: [
    { name: 'model', type: 'model', description: 'The model to train (untrained or trained).' },
    { name: 'dataset', type: 'dataset', description: 'Training rows.' },
  ],
  outputs: [
    { name: 'loss', type: 'number', stream: true, description: 'Mean training loss, streamed.' },
    { name: 'model', type: 'model', description: 'The model with its trained weights.' },
  ],
  async execute(ctx) {
    const model = expectModel(ctx.inputs.model, 'model');
    const data = standardiseForTraining(expectDataset(ctx.inputs.dataset, 'dataset'));
    if (data.task === 'regression')
      throw new FlowbenchError('node-input', {
        problem: `input 'dataset' has a regression target (${data.name}): train it with train.regressor, or set the table's task to classification`,
      });
    const spec: MlpSpec = {
      inputSize: data.featureSize,
      hidden: model.hidden,
      outputSize: data.classes,
      activation: model.activation,
    };
    const { backend } = ctx.params;
    let outcome = await train(ctx, data, spec, model, backend);
    if (
      outcome.result.status === 'error' &&
      backend === 'prefer-webgpu' &&
      outcome.ran === 'webgpu'
    ) {
      ctx.log(
        `webgpu failed (${outcome.result.error?.message ?? 'unknown error'}); retrying on wasm`,
      );
      outcome = await train(ctx, data, spec, model, 'wasm');
    }
    const { result, ran, weights } = outcome;
    if (result.status !== 'ok' || weights === null)
      throw new Error(result.error?.message ?? `training ended ${result.status}`);
    const trained: ModelValue = {
      ...model,
      inputSize: spec.inputSize,
      outputSize: spec.outputSize,
      weights,
      ...carriedFrom(data),
    };
    logResidency(ctx, result, ran);
    ctx.artifact('model', buildMlpInference(spec, weights).model, 'application/onnx');
    ctx.emit('model', trained);
  },
});

/** Says where the carried weights lived between steps, from the loop's own counts. */
function logResidency(ctx: TrainContext, result: RequestResult, ran: Backend | null): void {
  const fed = result.outputs[deviceFedUnitsOutput(LOOP)];
  const onGpu = result.outputs[gpuFedUnitsOutput(LOOP)];
  if (typeof fed !== 'number' || fed === 0) return;
  const steps = ctx.params.steps;
  if (typeof onGpu === 'number' && onGpu > 0)
    ctx.log(
      `weights and optimizer state stayed in GPU buffers between steps: ${onGpu} of ${steps} ` +
        "steps were fed the step before's outputs on the device; read back once, at the end",
    );
  else
    ctx.log(
      `weights and optimizer state passed from step to step without a copy on ${ran ?? 'the device'}` +
        ` (${fed} of ${steps} steps); read back once, at the end`,
    );
}

interface TrainOutcome {
  readonly result: RequestResult;
  /** The backend the train step's session ran on, if it loaded. */
  readonly ran: Backend | null;
  readonly weights: MlpWeights | null;
}

/** One attempt: the training loop as a program, run by the engine's host. */
async function train(
  ctx: TrainContext,
  data: Dataset,
  spec: MlpSpec,
  model: ModelValue,
  backend: NodeBackend,
): Promise<TrainOutcome> {
  const { steps, batch_size, optimizer, lr, momentum, log_every, seed } = ctx.params;
  const random = createRandom(seed);
  const initial = model.weights ?? initMlpWeights(spec, random);
  // The batch order continues the stream the weights were drawn from.
  const orderStream = () => {
    const r = createRandom(seed);
    if (!model.weights) initMlpWeights(spec, r);
    return r;
  };
  const batches = classifierBatches(data, batch_size, orderStream);
  const step = buildMlpTrainStep(spec, { optimizer, loss: 'softmax_cross_entropy' });
  const trainStep = mlpTrainStepModel(ctx.node, step, backend);
  const id = trainStep.id;
  // Filled in as the program runs (callbacks, so not narrowed by the compiler).
  const seen: { ran: Backend | null; perSecond: number | null } = { ran: null, perSecond: null };
  const loop = mlpTrainLoop({
    name: LOOP,
    model: id,
    step,
    units: steps,
    batchSize: batches.size,
    hyperparameters: { lr, momentum },
    initialWeights: initial,
    batch: (index) => batches.batch(index),
  });
  const watched: LoopStep = {
    ...loop,
    start(sctx) {
      const ran = sctx.session(id).backend;
      seen.ran = ran;
      ctx.log(`training on ${ran} with ${optimizer}: ${steps} steps of ${batches.size} rows`);
      if (backend === 'prefer-webgpu' && ran !== 'webgpu')
        ctx.log('preferred webgpu, but this engine has no WebGPU adapter: ran on wasm');
      return loop.start(sctx);
    },
  };
  let lossSum = 0;
  let lossCount = 0;
  let emitted = 0;
  const report = await ctx.programs.run({
    node: ctx.node,
    backend,
    models: [trainStep],
    requests: [nodeRequest(ctx.node, watched, ctx.signal)],
    onTick(tick) {
      const progress = tick.requests[0];
      if (progress?.step !== LOOP || progress.units === 0) return;
      ctx.progress(progress.unitsDone, progress.units);
      seen.perSecond = progress.unitsPerSecond ?? seen.perSecond;
    },
    onEmit(_request, metric, value) {
      if (metric !== `${LOOP}.loss`) return;
      lossSum += value;
      lossCount++;
      emitted++;
      if (lossCount === log_every || emitted === steps) {
        ctx.emit('loss', lossSum / lossCount);
        lossSum = 0;
        lossCount = 0;
      }
    },
  });
  const result = report.results[0]!;
  if (result.status === 'ok') {
    ctx.progress(steps, steps);
    if (seen.perSecond !== null) ctx.log(`${steps} steps at ${seen.perSecond.toFixed(1)} steps/s`);
  }
  return {
    result,
    ran: seen.ran,
    weights:
      result.status === 'ok' ? trainedWeights(result.outputs, `${LOOP}.weights`, initial) : null,
  };
}
