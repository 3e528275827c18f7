/**
 * The CNN train step (model.cnn: 1×28×28 images, two blocks of 8 3×3
 * filters, 10 classes, batch 64, momentum), in Node:
 *
 * - through the real runner — `executeFlow` driving `train.classifier` on
 *   an `OrtRuntime` — versus a bare onnxruntime-web loop feeding the weights
 *   back, both on the node's batches in its order (`classifierBatches`), as
 *   the MLP row in ort.ts does: the ratio is the runner's own overhead;
 * - the bare loop on one fixed batch on onnxruntime-web WASM versus
 *   onnxruntime-node CPU, same thread count: the engines alone on the
 *   conv, pool and their hand-written backward ops.
 */
import * as ortNode from 'onnxruntime-node';
import * as ortWeb from 'onnxruntime-web';
import { createCatalog } from '../../src/core/catalog/catalog';
import { defineNodeKind } from '../../src/core/catalog/kind';
import type { Dataset } from '../../src/core/catalog/values';
import { executeFlow } from '../../src/core/engine/executor';
import type { FlowDocument } from '../../src/core/flow/document';
import { inProcessProducers } from '../../src/core/live/producer-host';
import type { CnnSpec } from '../../src/core/onnx/cnn';
import { buildBlockTrainStep, initBlockWeights } from '../../src/core/onnx/model-blocks';
import { classifierBatches } from '../../src/core/nodes/classifier-batches';
import { modelCnn } from '../../src/core/nodes/model-cnn';
import { trainClassifier } from '../../src/core/nodes/train-classifier';
import { createRandom, type Random } from '../../src/core/random';
import { engineInfo, OrtRuntime, WASM_THREADS } from '../../workers/engine/ort-runtime';
import { compareRow, noTarget, ratioAtLeast, type BenchRow } from '../lib/rows';
import { bareTrainer as bareLoop, type BareTraining } from '../lib/bare-trainer';
import type { OrtLike } from '../lib/train-loop';
import { alternate } from '../lib/stats';
import { quietEvents } from './events';

const THREADS = WASM_THREADS;
const SPEC: CnnSpec & { architecture: 'cnn' } = {
  architecture: 'cnn',
  channels: 1,
  height: 28,
  width: 28,
  filters: 8,
  kernel: 3,
  blocks: 2,
  outputSize: 10,
};
const ROW_SHAPE = [SPEC.channels, SPEC.height, SPEC.width];
const FEATURES = SPEC.channels * SPEC.height * SPEC.width;
const BATCH = 64;
const ROWS = 1024;
const WARM_STEPS = 3;
const TIMED_STEPS = 20;
const SEED = 0;
const LR = 0.05;
const MOMENTUM = 0.9;

ortWeb.env.wasm.numThreads = THREADS;
ortWeb.env.logLevel = 'error';

const webRuntime = new OrtRuntime(engineInfo(null), () => Promise.resolve(ortWeb), 'wasm');
const yieldNow = () => new Promise<void>((resolve) => setImmediate(resolve));

function images(): Dataset {
  const random = createRandom(1);
  const features = new Float32Array(ROWS * FEATURES);
  for (let i = 0; i < features.length; i++) features[i] = random();
  return {
    kind: 'dataset',
    name: 'bench-images',
    features,
    labels: Int32Array.from({ length: ROWS }, (_, i) => i % SPEC.outputSize),
    count: ROWS,
    featureSize: FEATURES,
    classes: SPEC.outputSize,
    shape: ROW_SHAPE,
  };
}
const dataset = images();

const benchImages = defineNodeKind({
  kind: 'bench.images',
  title: 'Bench images',
  category: 'data',
  description: 'Random 1×28×28 images in 10 classes.',
  params: {},
  inputs: [],
  outputs: [{ name: 'dataset', type: 'dataset', description: 'The images.' }],
  execute(ctx) {
    ctx.emit('dataset', dataset);
    return Promise.resolve();
  },
});
const catalog = createCatalog([benchImages, modelCnn, trainClassifier]);

function trainFlow(steps: number): FlowDocument {
  return {
    format: 'flowbench.flow/1',
    name: 'bench-cnn-train-step',
    inputs: [],
    outputs: [],
    nodes: [
      { id: 'data', kind: 'bench.images', params: {}, position: { x: 0, y: 0 } },
      {
        id: 'model',
        kind: 'model.cnn',
        params: { channels: SPEC.filters, kernel: SPEC.kernel, blocks: SPEC.blocks },
        position: { x: 0, y: 200 },
      },
      {
        id: 'train',
        kind: 'train.classifier',
        params: {
          steps,
          batch_size: BATCH,
          lr: LR,
          momentum: MOMENTUM,
          log_every: 10,
          seed: SEED,
          backend: 'wasm',
        },
        position: { x: 300, y: 100 },
      },
    ],
    edges: [
      { from: 'data.dataset', to: 'train.dataset' },
      { from: 'model.model', to: 'train.model' },
    ],
  };
}

/** One run of the train node; ms per step between its progress calls after the warm steps. */
async function runnerTrial(): Promise<number> {
  const stamps: number[] = [];
  const errors: string[] = [];
  const result = await executeFlow({
    flow: trainFlow(WARM_STEPS + TIMED_STEPS + 1),
    catalog,
    inputs: {},
    runtime: webRuntime,
    producers: inProcessProducers,
    events: quietEvents({
      nodeFinished: (node, outcome) => {
        if (outcome.status !== 'ok') errors.push(`${node}: ${outcome.error}`);
      },
      progress: () => void stamps.push(performance.now()),
    }),
    signal: new AbortController().signal,
    now: Date.now,
    yieldNow,
  });
  if (result.status !== 'ok')
    throw new Error(`train run ended ${result.status}: ${errors.join('; ')}`);
  return (stamps[WARM_STEPS + TIMED_STEPS - 1]! - stamps[WARM_STEPS - 1]!) / TIMED_STEPS;
}

/** The node's batch order: its seed's stream, after the weights were drawn from it. */
function nodeOrder(): Random {
  const random = createRandom(SEED);
  initBlockWeights(SPEC, random);
  return random;
}

/** The bare loop's training: the node's CNN, its weights and its batches. */
function bareTraining(): BareTraining {
  const batches = () => classifierBatches(dataset, BATCH, nodeOrder, ROW_SHAPE);
  const first = batches().batch(0);
  return {
    step: buildBlockTrainStep(SPEC, { optimizer: 'momentum', loss: 'softmax_cross_entropy' }),
    initial: initBlockWeights(SPEC, createRandom(SEED)),
    fixed: {
      x: Float32Array.from(first.x.data),
      xDims: [...first.x.dims],
      y: Float32Array.from(first.y.data),
      yDims: [...first.y.dims],
    },
    batches,
    lr: LR,
    momentum: MOMENTUM,
    warmSteps: WARM_STEPS,
    timedSteps: TIMED_STEPS,
  };
}

/** A bare loop of the node's CNN on one runtime (bench/lib/bare-trainer.ts). */
const bareTrainer = (
  ort: OrtLike,
  options: ortWeb.InferenceSession.SessionOptions,
  batches: 'prepared' | 'fixed',
) => bareLoop(ort, options, batches, bareTraining());

const stepsPerSecond = (msPerStep: number) => 1000 / msPerStep;
const note = `CNN ${ROW_SHAPE.join('×')} → ${SPEC.blocks} × (conv ${SPEC.filters}×${SPEC.kernel}×${SPEC.kernel} → ReLU → 2×2 max-pool) → ${SPEC.outputSize}, batch ${BATCH}, SGD with momentum`;

export async function run(): Promise<BenchRow[]> {
  console.error('[cnn] CNN train step…');
  const web = await bareTrainer(ortWeb, { executionProviders: ['wasm'] }, 'prepared');
  const webFixed = await bareTrainer(ortWeb, { executionProviders: ['wasm'] }, 'fixed');
  const native = await bareTrainer(
    ortNode,
    { executionProviders: ['cpu'], intraOpNumThreads: THREADS },
    'fixed',
  );
  const runner = await alternate({
    a: runnerTrial,
    b: () => web.trial(),
    warmups: 1,
    minTrials: 5,
    maxTrials: 9,
    budgetMs: 25_000,
  });
  const runnerRow = compareRow({
    name: 'CNN train step: runner vs bare ORT-web loop',
    unit: 'steps/s',
    lowerIsBetter: false,
    ours: runner.a.map(stepsPerSecond),
    reference: runner.b.map(stepsPerSecond),
    target: ratioAtLeast(0.95),
    note: `${note}; executeFlow → model.cnn → train.classifier → OrtRuntime (from the node's progress calls, after ${WARM_STEPS} warm steps) vs session.run in a loop on the node's batches in its order; onnxruntime-web WASM in Node, threads: ${THREADS}`,
  });
  const engines = await alternate({
    a: () => webFixed.trial(),
    b: () => native.trial(),
    warmups: 1,
    minTrials: 5,
    maxTrials: 9,
    budgetMs: 20_000,
  });
  const engineRow = compareRow({
    name: 'CNN train step: ORT-web WASM vs onnxruntime-node',
    unit: 'steps/s',
    lowerIsBetter: false,
    ours: engines.a.map(stepsPerSecond),
    reference: engines.b.map(stepsPerSecond),
    target: noTarget,
    note: `${note}; the same bare loop on one fixed batch on onnxruntime-web WASM (in Node) vs onnxruntime-node CPU, threads: ${THREADS} each; the issue sets no target for it`,
  });
  await web.release();
  await webFixed.release();
  await native.release();
  return [runnerRow, engineRow];
}
