/**
 * The train-step rows of a model kind trained by `train.classifier` (the
 * CNN's, the attention model's), in Node:
 *
 * - through the real runner — `executeFlow` driving `train.classifier` on
 *   an `OrtRuntime` — versus a bare onnxruntime-web loop feeding the weights
 *   back, both on the node's batches in its order (`classifierBatches`), as
 *   the MLP row in ort.ts does: the ratio is the runner's own overhead;
 * - the bare loop on one fixed batch on onnxruntime-web WASM versus
 *   onnxruntime-node CPU, same thread count: the engines alone on the
 *   block's forward and hand-written backward ops.
 *
 * Idea: a bench gives its block, its model node and params, and its rows;
 * the flow, the trials and the rows are written once. Trade-off: every
 * block is timed with SGD with momentum and cross-entropy, the node's
 * defaults, not each block's best settings.
 */
import * as ortNode from 'onnxruntime-node';
import * as ortWeb from 'onnxruntime-web';
import { createCatalog } from '../../src/core/catalog/catalog';
import type { NodeKind } from '../../src/core/catalog/kind';
import type { Dataset } from '../../src/core/catalog/values';
import {
  blockInputShape,
  buildBlockTrainStep,
  initBlockWeights,
  type TrainableBlock,
} from '../../src/core/onnx/model-blocks';
import { classifierBatches } from '../../src/core/nodes/classifier-batches';
import { trainClassifier } from '../../src/core/nodes/train-classifier';
import { createRandom, type Random } from '../../src/core/random';
import { OrtRuntime } from '../../workers/engine/ort-runtime';
import { engineInfo } from '../../workers/engine/adapter';
import { WASM_THREADS } from '../../workers/engine/ort-loader';
import { noTarget, type BenchRow, type Target } from './rows';
import { bareTrainers, stepsRow, type BareTraining } from './bare-trainer';
import { alternate } from './stats';
import { datasetNode, runnerStepMs, type ClassifierRun } from './classifier-run';

/** One model kind's train-step bench. */
export interface BlockTrainBench {
  /** How its rows begin: `CNN`, `Attention`. */
  readonly label: string;
  /** Its suite's name in the progress lines. */
  readonly suite: string;
  /** The network `train.classifier` makes of `model` on `dataset`, which the bare loops train. */
  readonly block: TrainableBlock;
  /** The model node and the params that make `block` on `dataset`. */
  readonly model: NodeKind;
  readonly modelParams: Readonly<Record<string, number>>;
  readonly dataset: Dataset;
  /** What is trained, in words, at the head of each row's note. */
  readonly note: string;
  /** The runner row's target. */
  readonly runnerTarget: Target;
}

const THREADS = WASM_THREADS;
const BATCH = 64;
const WARM_STEPS = 3;
const TIMED_STEPS = 20;
const SEED = 0;
const LR = 0.05;
const MOMENTUM = 0.9;

ortWeb.env.wasm.numThreads = THREADS;
ortWeb.env.logLevel = 'error';

const webRuntime = new OrtRuntime(engineInfo(null), () => Promise.resolve(ortWeb), 'wasm');

/** The bench's two rows: runner vs bare loop, and ORT-web vs onnxruntime-node. */
export async function blockTrainRows(bench: BlockTrainBench): Promise<BenchRow[]> {
  const { block, dataset } = bench;
  const rowShape = blockInputShape(block);
  const benchData = datasetNode(
    'bench.data',
    { title: 'Bench data', description: 'The bench rows.' },
    dataset,
  );
  const catalog = createCatalog([benchData, bench.model, trainClassifier]);
  const run: ClassifierRun = {
    name: `bench-${bench.suite}-train-step`,
    dataKind: 'bench.data',
    model: { kind: bench.model.kind, params: bench.modelParams },
    batch: BATCH,
    lr: LR,
    momentum: MOMENTUM,
    seed: SEED,
  };
  const runnerTrial = () =>
    runnerStepMs({
      run,
      catalog,
      runtime: webRuntime,
      warmSteps: WARM_STEPS,
      timedSteps: TIMED_STEPS,
    });

  /** The node's batch order: its seed's stream, after the weights were drawn from it. */
  const nodeOrder = (): Random => {
    const random = createRandom(SEED);
    initBlockWeights(block, random);
    return random;
  };
  const batches = () => classifierBatches(dataset, BATCH, nodeOrder, rowShape);
  const first = batches().batch(0);
  const training: BareTraining = {
    step: buildBlockTrainStep(block, { optimizer: 'momentum', loss: 'softmax_cross_entropy' }),
    initial: initBlockWeights(block, createRandom(SEED)),
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
  const note = `${bench.note}, batch ${BATCH}, SGD with momentum`;
  console.error(`[${bench.suite}] ${bench.label} train step…`);
  const trainers = await bareTrainers(training, {
    web: ortWeb,
    native: ortNode,
    threads: THREADS,
  });
  const { web, webFixed, native } = trainers;
  const runner = await alternate({
    a: runnerTrial,
    b: () => web.trial(),
    warmups: 1,
    minTrials: 5,
    maxTrials: 9,
    budgetMs: 25_000,
  });
  const runnerRow = stepsRow({
    name: `${bench.label} train step: runner vs bare ORT-web loop`,
    trials: runner,
    target: bench.runnerTarget,
    note: `${note}; executeFlow → ${bench.model.kind} → train.classifier → OrtRuntime (from the node's progress calls, after ${WARM_STEPS} warm steps) vs session.run in a loop on the node's batches in its order; onnxruntime-web WASM in Node, threads: ${THREADS}`,
  });
  const engines = await alternate({
    a: () => webFixed.trial(),
    b: () => native.trial(),
    warmups: 1,
    minTrials: 5,
    maxTrials: 9,
    budgetMs: 20_000,
  });
  const engineRow = stepsRow({
    name: `${bench.label} train step: ORT-web WASM vs onnxruntime-node`,
    trials: engines,
    target: noTarget,
    note: `${note}; the same bare loop on one fixed batch on onnxruntime-web WASM (in Node) vs onnxruntime-node CPU, threads: ${THREADS} each; the issue sets no target for it`,
  });
  await trainers.release();
  return [runnerRow, engineRow];
}
