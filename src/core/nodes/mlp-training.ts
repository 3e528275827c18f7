/**
 * Training a model (an MLP or a CNN, see model-fit.ts) on a dataset, shared
 * by `train.classifier` and `train.regressor`: an ONNX train-step graph (forward, backward, loss and
 * the optimizer update are all ONNX ops, weights in → updated weights out),
 * since onnxruntime-web has no training API. The training is a program —
 * one loop of `steps` units over the resident train-step model — run by the
 * engine's program runner, so the device pool admits it before it starts,
 * its weights stay on the device between steps, and a cancel stops it at
 * the next step. The loss streams out as it falls; with a validation
 * dataset, the loss on it is measured once the weights are trained (a
 * one-step program over the loss graph), so its cost never slows the loop.
 * The trained model keeps its optimizer's state beside its weights, read
 * back once at the end; a training fed that model with the same optimizer
 * resumes it (onnx/optimizer-state.ts): its updates are those the first
 * training's optimizer would have made next, on the batches its own seed
 * draws.
 */
import { backendParam } from './backend-param';
import type { NodeContext, NodeKind } from '../catalog/kind';
import type { ParamValues } from '../catalog/params';
import { standardiseForTraining, standardiseLike } from '../catalog/standardise';
import {
  carriedFrom,
  expectDataset,
  expectModel,
  type Dataset,
  type ModelValue,
  type TrainedModel,
} from '../catalog/values';
import type { PortSpec } from '../catalog/ports';
import { float32, hostOutput, type Backend, type NodeBackend } from '../runtime/tensor-runtime';
import { graphCaptureLine } from '../runtime/graph-capture';
import {
  mlpOptimizers,
  resumeOptimizerState,
  type MlpLossKind,
  type OptimizerState,
} from '../onnx/mlp';
import type { MlpWeights } from '../onnx/mlp-spec';
import {
  buildBlockExport,
  buildBlockLoss,
  buildBlockTrainStep,
  initBlockWeights,
  type TrainableBlock,
} from '../onnx/model-blocks';
import { estimateMemory } from '../onnx/memory';
import {
  component,
  deviceFedUnitsOutput,
  gpuFedUnitsOutput,
  mlpTrainLoop,
  loopProgress,
  mlpTrainStepModel,
  modelId,
  nodeRequest,
  outputWeights,
  requestId,
  trainedOptimizerState,
  trainedWeights,
  transferOutputs,
  type LoopStep,
  type RequestResult,
} from '../programs';
import { createRandom } from '../random';
import { classifierBatches } from './classifier-batches';
import { batchDims, blockFor, inputShapeOf, trainedBlockFor } from './model-fit';

/** The params every MLP trainer has. */
export const trainingParams = {
  steps: { type: 'int', default: 200, min: 1, max: 1_000_000, description: 'Training steps.' },
  epochs: {
    type: 'int',
    default: 0,
    min: 0,
    max: 100_000,
    description:
      'Passes over the training rows, reshuffled each pass; 0: train for `steps` instead.',
  },
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

/** The ports every MLP trainer has. */
export const trainingPorts: { inputs: readonly PortSpec[]; outputs: readonly PortSpec[] } = {
  inputs: [
    { name: 'model', type: 'model', description: 'The model to train (untrained or trained).' },
    { name: 'dataset', type: 'dataset', description: 'Training rows.' },
    {
      name: 'validation',
      type: 'dataset',
      optional: true,
      description: 'Held-out rows whose loss is measured once the model is trained.',
    },
  ],
  outputs: [
    { name: 'loss', type: 'number', stream: true, description: 'Mean training loss, streamed.' },
    {
      name: 'val_loss',
      type: 'number',
      description: 'Loss on the validation rows (when they are wired).',
    },
    { name: 'model', type: 'model', description: 'The model with its trained weights.' },
  ],
};

type TrainingParams = typeof trainingParams;
type TrainContext = NodeContext<ParamValues<TrainingParams>>;

/** Name of the training loop in the program (and its metrics and outputs). */
const LOOP = 'train';
/** The loop's loss metric, one point a step. */
const LOSS_METRIC = `${LOOP}.loss`;

/** Steps to train: `epochs` passes over the rows when set, else `steps`. */
export function stepsOf(
  params: { steps: number; epochs: number; batch_size: number },
  rows: number,
): number {
  if (params.epochs === 0) return params.steps;
  const perEpoch = Math.max(1, Math.floor(rows / Math.min(params.batch_size, Math.max(1, rows))));
  return params.epochs * perEpoch;
}

/**
 * The body of an MLP trainer with loss `loss`; `check` refuses a dataset of
 * the wrong task before anything runs.
 */
export function trainMlp(
  loss: (ctx: TrainContext) => MlpLossKind,
  check: (data: Dataset) => void,
): NodeKind<TrainingParams>['execute'] {
  return async (ctx) => {
    const model = expectModel(ctx.inputs.model, 'model');
    const data = standardiseForTraining(expectDataset(ctx.inputs.dataset, 'dataset'));
    check(data);
    const spec = blockFor(model, data, 'dataset');
    const { backend } = ctx.params;
    const kind = loss(ctx);
    const steps = stepsOf(ctx.params, data.count);
    // A trained model goes on with its optimizer's state, when this training's optimizer made it.
    const resumed = model.weights
      ? resumeOptimizerState(ctx.params.optimizer, model.weights.layout, model.optimizerState)
      : null;
    if (resumed?.log) ctx.log(resumed.log);
    const start = resumed?.state ?? undefined;
    let outcome = await train(ctx, data, spec, model, backend, kind, steps, start);
    if (
      outcome.result.status === 'error' &&
      backend === 'prefer-webgpu' &&
      outcome.ran === 'webgpu'
    ) {
      ctx.log(
        `webgpu failed (${outcome.result.error?.message ?? 'unknown error'}); retrying on wasm`,
      );
      outcome = await train(ctx, data, spec, model, 'wasm', kind, steps, start);
    }
    const { result, ran, weights, state } = outcome;
    if (result.status !== 'ok' || weights === null || state === null)
      throw new Error(result.error?.message ?? `training ended ${result.status}`);
    const trained: TrainedModel = {
      ...model,
      inputSize: data.featureSize,
      ...inputShapeOf(spec),
      outputSize: spec.outputSize,
      weights,
      optimizerState: state,
      ...carriedFrom(data),
    };
    logResidency(ctx, result, ran, steps);
    ctx.artifact(
      'model',
      exportedModel(ctx.node, data, spec, trained, weights),
      'application/onnx',
    );
    if (ctx.inputs.validation !== undefined) {
      const held = standardiseLike(expectDataset(ctx.inputs.validation, 'validation'), trained);
      const value = await validationLoss(ctx, held, trained, weights, kind, ran ?? 'wasm');
      ctx.log(`validation loss ${value.toPrecision(4)} on ${held.count} rows`);
      ctx.emit('val_loss', value);
    }
    ctx.emit('model', trained);
  };
}

/**
 * The downloadable model: raw feature rows in, the dataset's standardisation
 * applied as graph ops, names and classes in its metadata (the run's id is
 * stamped on when it is downloaded; a node does not know its run).
 */
function exportedModel(
  node: string,
  data: Dataset,
  spec: TrainableBlock,
  trained: ModelValue,
  weights: MlpWeights,
): Uint8Array {
  return buildBlockExport(spec, weights, {
    task: data.task ?? 'classification',
    ...(trained.standardisation ? { standardisation: trained.standardisation } : {}),
    ...(trained.featureNames ? { featureNames: trained.featureNames } : {}),
    ...(trained.classNames ? { classNames: trained.classNames } : {}),
    metadata: { 'flowbench.node': node, 'flowbench.dataset': data.name },
  });
}

/** Targets of `data` as the loss graph takes them: one-hot classes, or the regression targets. */
function targetsOf(data: Dataset): Float32Array {
  if (data.targets) return data.targets;
  const y = new Float32Array(data.count * data.classes);
  for (let r = 0; r < data.count; r++) y[r * data.classes + data.labels[r]!] = 1;
  return y;
}

/** The mean loss of the trained weights on `data`, as a one-step program over the loss graph. */
async function validationLoss(
  ctx: TrainContext,
  data: Dataset,
  trained: TrainedModel,
  weights: MlpWeights,
  kind: MlpLossKind,
  backend: Backend,
): Promise<number> {
  const spec = trainedBlockFor(trained, data, 'validation');
  const graph = buildBlockLoss(spec, kind);
  const id = modelId(`${ctx.node}/validation-loss`);
  const seen: { loss: number | null } = { loss: null };
  const report = await ctx.programs.run({
    node: ctx.node,
    backend,
    models: [
      {
        id,
        label: `${ctx.node} validation loss`,
        model: graph.model,
        backend,
        residentBytes: estimateMemory(graph.graph, { dims: { batch: 1 } }).constantBytes,
      },
    ],
    requests: [
      {
        id: requestId(`${ctx.node}#validation`),
        signal: ctx.signal,
        program: {
          steps: [
            component({ name: 'weights', run: (s) => outputWeights(s, 'weights', weights) }),
            component({
              name: 'validation',
              models: [id],
              peakBytes: estimateMemory(graph.graph, { dims: { batch: data.count } }).peakBytes,
              async run(sctx) {
                const feeds: Record<string, ReturnType<typeof float32>> = {
                  [graph.inputs.x]: float32(data.features, batchDims(spec, data.count)),
                  [graph.inputs.y]: float32(targetsOf(data), [data.count, spec.outputSize]),
                };
                for (const slot of weights.layout)
                  feeds[graph.inputs.weights[slot.name]!] = float32(
                    weights.values[slot.name]!,
                    slot.dims,
                  );
                const out = await sctx.session(id).run(feeds);
                seen.loss = Number(hostOutput(out, graph.outputs.loss).data[0]);
              },
            }),
          ],
        },
      },
    ],
  });
  const result = report.results[0]!;
  if (result.status !== 'ok' || seen.loss === null)
    throw new Error(result.error?.message ?? `validation ended ${result.status}`);
  return seen.loss;
}

/** Says where the carried weights lived between steps, from the loop's own counts. */
function logResidency(
  ctx: TrainContext,
  result: RequestResult,
  ran: Backend | null,
  steps: number,
): void {
  const fed = result.outputs[deviceFedUnitsOutput(LOOP)];
  const onGpu = result.outputs[gpuFedUnitsOutput(LOOP)];
  if (typeof fed !== 'number' || fed === 0) return;
  if (typeof onGpu === 'number' && onGpu > 0)
    ctx.log(
      `weights and optimizer state stayed in GPU buffers between steps: ${onGpu} of ${steps} ` +
        "steps were fed the step before's outputs on the device; read back once, at the end",
    );
  else {
    const gathered = result.outputs[transferOutputs(LOOP).residentRows] === 1;
    ctx.log(
      `weights and optimizer state passed from step to step without a copy on ${ran ?? 'the device'}` +
        ` (${fed} of ${steps} steps); read back once, at the end` +
        (gathered ? "; each step's rows gathered from the dataset where it lies, not copied" : ''),
    );
  }
}

const bytes = (n: number): string =>
  n < 1024
    ? `${Math.round(n)} B`
    : n < 1024 ** 2
      ? `${(n / 1024).toFixed(1)} KiB`
      : `${(n / 1024 ** 2).toFixed(1)} MiB`;

/** Says the bytes that crossed between CPU and GPU per step, where a device loop counted them. */
function logTransfers(ctx: TrainContext, result: RequestResult, batchBytes: number): void {
  const names = transferOutputs(LOOP);
  const up = result.outputs[names.uploadedPerStep];
  const down = result.outputs[names.readBackPerStep];
  const once = result.outputs[names.uploadedOnce];
  const resident = result.outputs[names.residentRows];
  if (typeof up !== 'number' || typeof down !== 'number' || typeof once !== 'number') return;
  const where =
    resident === 1
      ? 'the dataset stayed on the GPU, each step sent its row indices'
      : 'the dataset did not fit on the GPU, each step sent its batch';
  ctx.log(
    `bytes per step: ${bytes(up)} to the GPU, ${bytes(down)} back (the batch itself is ${bytes(batchBytes)}); ` +
      `${bytes(once)} uploaded once (${where})`,
  );
}

interface TrainOutcome {
  readonly result: RequestResult;
  /** The backend the train step's session ran on, if it loaded. */
  readonly ran: Backend | null;
  readonly weights: MlpWeights | null;
  /** The optimizer's state at the end, beside the weights. */
  readonly state: OptimizerState | null;
}

/** One attempt: the training loop as a program, run by the engine's host. */
async function train(
  ctx: TrainContext,
  data: Dataset,
  spec: TrainableBlock,
  model: ModelValue,
  backend: NodeBackend,
  loss: MlpLossKind,
  steps: number,
  /** The optimizer state to start from (the input model's); absent: zeros. */
  initialState: OptimizerState | undefined,
): Promise<TrainOutcome> {
  const { batch_size, optimizer, lr, momentum, log_every, seed, epochs } = ctx.params;
  const random = createRandom(seed);
  const initial = model.weights ?? initBlockWeights(spec, random);
  // The batch order continues the stream the weights were drawn from.
  const orderStream = () => {
    const r = createRandom(seed);
    if (!model.weights) initBlockWeights(spec, r);
    return r;
  };
  const batches = classifierBatches(data, batch_size, orderStream, batchDims(spec, 1).slice(1));
  const step = buildBlockTrainStep(spec, { optimizer, loss });
  // Where the loop keeps the whole dataset where its session reads it (on WebGPU, or on
  // onnxruntime-node whatever backend the node names) the step gathers its own batch. Its state's
  // denormal values are left be: a GPU flushes them, and so does every onnxruntime-node session
  // the command line opens.
  const gathering = buildBlockTrainStep(spec, {
    optimizer,
    loss,
    residentRows: true,
    flushDenormals: false,
  });
  // Its batches are a pure function of the step: its loop may run many steps per call.
  const trainStep = mlpTrainStepModel(ctx.node, step, backend, {
    loops: true,
    gatheringStep: gathering,
  });
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
    ...(initialState && { initialState }),
    stateOutput: `${LOOP}.state`,
    batch: (index, into) => batches.batch(index, into),
    batchesAhead: true,
    resident: {
      step: gathering,
      rows: {
        x: float32(data.features, batchDims(spec, data.count)),
        y: float32(targetsOf(data), [data.count, spec.outputSize]),
        rows: (index) => batches.rows(index),
      },
    },
    onGraphCapture: (report) => {
      const line = graphCaptureLine(report);
      if (line !== null) ctx.log(line);
    },
    onPace: (pace) =>
      ctx.log(
        `${pace.messages} messages of ${pace.minUnits}–${pace.maxUnits} steps ` +
          `(${pace.meanUnits.toFixed(1)} on average, ${pace.meanMs.toFixed(0)} ms of work each)`,
      ),
  });
  const watched: LoopStep = {
    ...loop,
    start(sctx) {
      const session = sctx.session(id);
      const ran = session.backend;
      seen.ran = ran;
      if (session.host !== undefined) ctx.log(`training in ${session.host}`);
      const passes = epochs > 0 ? ` (${epochs} epochs)` : '';
      ctx.log(
        `training on ${ran} with ${optimizer}: ${steps} steps of ${batches.size} rows${passes}, ${loss} loss`,
      );
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
    onTick: loopProgress(LOOP, (done, total, perSecond) => {
      ctx.progress(done, total, perSecond ?? undefined);
      seen.perSecond = perSecond ?? seen.perSecond;
    }),
    onEmit(_request, metric, value) {
      if (metric !== LOSS_METRIC) return;
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
    logTransfers(ctx, result, batches.size * (data.featureSize + spec.outputSize) * 4);
    if (seen.perSecond !== null) ctx.log(`${steps} steps at ${seen.perSecond.toFixed(1)} steps/s`);
  }
  const ok = result.status === 'ok';
  return {
    result,
    ran: seen.ran,
    weights: ok ? trainedWeights(result.outputs, `${LOOP}.weights`, initial) : null,
    state: ok
      ? trainedOptimizerState(result.outputs, `${LOOP}.state`, optimizer, initial.layout)
      : null,
  };
}
