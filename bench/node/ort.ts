/**
 * onnxruntime rows, in Node (onnxruntime-web runs its WASM backend there):
 *
 * - per-call overhead of `run()` on a tiny graph, through Flowbench's
 *   `OrtRuntime` session wrapper versus a bare onnxruntime-web session;
 * - the MLP train step (784→128→10, batch 256, momentum) through the real
 *   runner — `executeFlow` driving the `train.classifier` node on an
 *   `OrtRuntime` — versus a bare onnxruntime-web loop feeding weights back.
 *   Both sides train on the same batches, made by the same code: the node's
 *   `classifierBatches`, drawn in the node's order. A bare loop that trains
 *   for real must assemble its batches too, so neither side is spared that
 *   work, and the ratio is the runner's own overhead (program, admission,
 *   metrics, progress). What the batches cost alone is measured apart and
 *   printed in the row's note;
 * - the bare loop on one fixed batch on onnxruntime-web WASM versus
 *   onnxruntime-node CPU: the engines alone, nothing else in the step.
 *
 * Both runtimes get the engine's thread count (`WASM_THREADS`, one: see
 * ort-loader.ts), so the web/native ratio compares engines, not threads.
 *
 * Each train row's note gives the GFLOP/s it achieved (the step's matmuls,
 * `bench/lib/flops.ts`), and the ceiling rows run those matmuls alone — one
 * graph of bare `MatMul`s on constants in a tight loop, so onnxruntime's own kernel (MLAS:
 * 128-bit WASM SIMD on the web, the CPU's widest vectors natively) does all
 * the work — on onnxruntime-web beside onnxruntime-node, same threads: what
 * each engine could reach at best, so a train row says how close it is to
 * its limit and the web/native gap splits into kernel width and the rest.
 */
import * as ortNode from 'onnxruntime-node';
import * as ortWeb from 'onnxruntime-web';
import { createCatalog } from '../../src/core/catalog/catalog';
import type { Dataset } from '../../src/core/catalog/values';
import { float32 } from '../../src/core/runtime/tensor-runtime';
import type { FlowDocument } from '../../src/core/flow/document';
import { GraphBuilder } from '../../src/core/onnx/graph';
import { buildMlpTrainStep, initMlpWeights, type MlpSpec } from '../../src/core/onnx/mlp';
import { classifierBatches } from '../../src/core/nodes/classifier-batches';
import { modelMlp } from '../../src/core/nodes/model-mlp';
import { trainClassifier } from '../../src/core/nodes/train-classifier';
import { createRandom, type Random } from '../../src/core/random';
import { OrtRuntime } from '../../workers/engine/ort-runtime';
import { engineInfo } from '../../workers/engine/adapter';
import { WASM_THREADS } from '../../workers/engine/ort-loader';
import { gflops, mlpTrainFlops, mlpTrainMatmuls } from '../lib/flops';
import { compareRow, noTarget, ratioAtLeast, type BenchRow } from '../lib/rows';
import {
  bareTrainer as bareLoop,
  bareTrainers,
  stepsRow,
  type BareTraining,
} from '../lib/bare-trainer';
import { matmulSession, type OrtLike } from '../lib/train-loop';
import { alternate, median } from '../lib/stats';
import {
  classifierFlow,
  datasetNode,
  runnerStepMs,
  type ClassifierRun,
} from '../lib/classifier-run';

export const THREADS = WASM_THREADS;
export const SPEC: MlpSpec = { inputSize: 784, hidden: [128], outputSize: 10, activation: 'relu' };
export const BATCH = 256;
const ROWS = 2048;
/** Steps of each runner trial that warm a fresh session and are not timed. */
export const WARM_STEPS = 5;
export const TIMED_STEPS = 40;
const TINY_CALLS = 1000;
/** The node's `seed` (its default): its weights and batch order come from it. */
const SEED = 0;
const LR = 0.05;
const MOMENTUM = 0.9;

ortWeb.env.wasm.numThreads = THREADS;
ortWeb.env.logLevel = 'error';

/**
 * The runner's train step one step a run, as the engine takes it: the row
 * times a window of TIMED_STEPS units by their progress, and a loop that
 * runs K steps a call (session-loop.ts, the command line's) returns them a
 * call at a time, which a 40-step window cannot time fairly.
 */
const webRuntime = new OrtRuntime(
  engineInfo(null),
  () => Promise.resolve(ortWeb),
  'wasm',
  undefined,
  { sessionLoops: false },
);

// ── tiny graph ────────────────────────────────────────────────────────────

function tinyModel(): Uint8Array {
  const g = new GraphBuilder('tiny');
  const x = g.input('x', 'float32', [1, 4]);
  g.output(g.op('Relu', [x]), 'y', 'float32', [1, 4]);
  return g.toModel();
}

async function tinyRow(): Promise<BenchRow> {
  const model = tinyModel();
  const data = Float32Array.of(-1, 0, 1, 2);
  const wrapped = await webRuntime.createSession(model, 'wasm');
  const bare = await ortWeb.InferenceSession.create(model, { executionProviders: ['wasm'] });
  const feed = { x: new ortWeb.Tensor('float32', data, [1, 4]) };
  const perCallUs = async (call: () => Promise<unknown>) => {
    const start = performance.now();
    for (let i = 0; i < TINY_CALLS; i++) await call();
    return ((performance.now() - start) * 1000) / TINY_CALLS;
  };
  const { a, b } = await alternate({
    a: () => perCallUs(() => wrapped.run({ x: float32(data, [1, 4]) })),
    b: () => perCallUs(() => bare.run(feed)),
    warmups: 1,
    minTrials: 5,
    maxTrials: 11,
    budgetMs: 8_000,
  });
  await wrapped.release();
  await bare.release();
  const row = compareRow({
    name: 'ORT run() on a tiny graph, per call',
    unit: 'µs/call',
    lowerIsBetter: true,
    ours: a,
    reference: b,
    target: noTarget,
  });
  row.note = `OrtRuntime session wrapper vs a bare onnxruntime-web session (Relu on [1,4], WASM); overhead ${((row.value ?? 0) - (row.reference ?? 0)).toFixed(1)} µs/call; the issue sets no target for it`;
  return row;
}

// ── MLP train step ────────────────────────────────────────────────────────

function digits(): Dataset {
  const random = createRandom(1);
  const features = new Float32Array(ROWS * SPEC.inputSize);
  for (let i = 0; i < features.length; i++) features[i] = random();
  const labels = Int32Array.from({ length: ROWS }, (_, i) => i % SPEC.outputSize);
  return {
    kind: 'dataset',
    name: 'bench-digits',
    features,
    labels,
    count: ROWS,
    featureSize: SPEC.inputSize,
    classes: SPEC.outputSize,
  };
}
export const dataset = digits();

const benchData = datasetNode(
  'bench.digits',
  { title: 'Bench digits', description: 'Random 784-feature rows in 10 classes.' },
  dataset,
);
export const trainCatalog = createCatalog([benchData, modelMlp, trainClassifier]);

/** The MLP row's training as the runner runs it: the bench rows, the node's MLP, momentum. */
const mlpRun: ClassifierRun = {
  name: 'bench-train-step',
  dataKind: 'bench.digits',
  model: {
    kind: 'model.mlp',
    params: { hidden: SPEC.hidden[0]!, layers: SPEC.hidden.length, activation: 'relu' },
  },
  batch: BATCH,
  lr: LR,
  momentum: MOMENTUM,
  seed: SEED,
};

export function trainFlow(steps: number): FlowDocument {
  return classifierFlow(mlpRun, steps);
}

/** One run of the train node through the engine; ms per step (bench/lib/classifier-run.ts). */
const runnerTrial = () =>
  runnerStepMs({
    run: mlpRun,
    catalog: trainCatalog,
    runtime: webRuntime,
    warmSteps: WARM_STEPS,
    timedSteps: TIMED_STEPS,
  });

/** The node's batch order: its seed's stream, after the weights were drawn from it. */
export function nodeOrder(): Random {
  const random = createRandom(SEED);
  initMlpWeights(SPEC, random);
  return random;
}

/** The bare loop's training: the node's MLP, its weights and its batches, `timedSteps` timed after `warmSteps`. */
function bareTraining(timedSteps: number, warmSteps = WARM_STEPS): BareTraining {
  const x = dataset.features.slice(0, BATCH * SPEC.inputSize);
  const y = new Float32Array(BATCH * SPEC.outputSize);
  for (let i = 0; i < BATCH; i++) y[i * SPEC.outputSize + dataset.labels[i]!] = 1;
  return {
    step: buildMlpTrainStep(SPEC, { optimizer: 'momentum', loss: 'softmax_cross_entropy' }),
    initial: initMlpWeights(SPEC, createRandom(SEED)),
    fixed: { x, xDims: [BATCH, SPEC.inputSize], y, yDims: [BATCH, SPEC.outputSize] },
    batches: () => classifierBatches(dataset, BATCH, nodeOrder),
    lr: LR,
    momentum: MOMENTUM,
    warmSteps,
    timedSteps,
  };
}

/** A bare loop of the node's MLP on one runtime (bench/lib/bare-trainer.ts). */
export const bareTrainer = (
  ort: OrtLike,
  options: ortWeb.InferenceSession.SessionOptions,
  batches: 'prepared' | 'fixed',
  timedSteps = TIMED_STEPS,
  warmSteps = WARM_STEPS,
) => bareLoop(ort, options, batches, bareTraining(timedSteps, warmSteps));

/** Ms to assemble one batch with the node's `classifierBatches` (both runner-row sides pay it). */
function batchPrepMs(): number {
  const batches = classifierBatches(dataset, BATCH, nodeOrder);
  const count = 400;
  batches.batch(0);
  const start = performance.now();
  for (let i = 1; i <= count; i++) batches.batch(i);
  return (performance.now() - start) / count;
}

/** FLOP of one train step's matmuls, forward and backward. */
const STEP_FLOPS = mlpTrainFlops(SPEC, BATCH);
const gflopsOf = (row: BenchRow, side: 'value' | 'reference') =>
  gflops(STEP_FLOPS, row[side] ?? Number.NaN).toFixed(2);
/** Runs of the matmul graph per ceiling trial. */
const CEILING_RUNS = 40;
const trainNote = `MLP ${SPEC.inputSize}→${SPEC.hidden.join('→')}→${SPEC.outputSize}, batch ${BATCH}, SGD with momentum`;

async function trainRows(): Promise<BenchRow[]> {
  const trainers = await bareTrainers(bareTraining(TIMED_STEPS), {
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
    maxTrials: 11,
    budgetMs: 25_000,
  });
  const prep = median([batchPrepMs(), batchPrepMs(), batchPrepMs()]);
  const runnerRow = stepsRow({
    name: 'MLP train step: runner vs bare ORT-web loop',
    trials: runner,
    target: ratioAtLeast(0.95),
    note: `${trainNote}; executeFlow → train.classifier → OrtRuntime (timed from the node's own progress calls, after ${WARM_STEPS} warm steps) vs session.run in a loop, also from fresh weights after the same warm steps; both train on the node's batches in its order, assembled by the same code (${(prep * 1000).toFixed(0)} µs per batch, on both sides); onnxruntime-web WASM in Node, threads: ${THREADS}`,
  });

  const engines = await alternate({
    a: () => webFixed.trial(),
    b: () => native.trial(),
    warmups: 1,
    minTrials: 5,
    maxTrials: 11,
    budgetMs: 20_000,
  });
  const engineRow = stepsRow({
    name: 'MLP train step: ORT-web WASM vs onnxruntime-node',
    trials: engines,
    target: ratioAtLeast(0.5),
    note: `${trainNote}; the same bare loop on one fixed batch on onnxruntime-web WASM (in Node) vs onnxruntime-node CPU, threads: ${THREADS} each`,
  });
  // Achieved GFLOP/s beside the steps/s: the step's matmuls times the medians.
  runnerRow.note = `GFLOP/s (the step's matmuls, ${(STEP_FLOPS / 1e6).toFixed(0)} MFLOP): runner ${gflopsOf(runnerRow, 'value')}, bare loop ${gflopsOf(runnerRow, 'reference')}; ${runnerRow.note}`;
  engineRow.note = `GFLOP/s: ORT-web ${gflopsOf(engineRow, 'value')}, onnxruntime-node ${gflopsOf(engineRow, 'reference')}; ${engineRow.note}`;
  const ceilings = await ceilingRows(webFixed);
  await trainers.release();
  return [runnerRow, engineRow, ...ceilings];
}

/**
 * The step's matmuls alone on each engine (the ceiling), and the bare
 * ORT-web train loop's GFLOP/s against its engine's ceiling.
 */
async function ceilingRows(webTrainer: { trial: () => Promise<number> }): Promise<BenchRow[]> {
  const matmuls = mlpTrainMatmuls(SPEC, BATCH);
  const web = await matmulSession(ortWeb, { executionProviders: ['wasm'] }, matmuls);
  const native = await matmulSession(
    ortNode,
    { executionProviders: ['cpu'], intraOpNumThreads: THREADS },
    matmuls,
  );
  const trials = await alternate({
    a: () => web.trial(CEILING_RUNS),
    b: () => native.trial(CEILING_RUNS),
    warmups: 1,
    minTrials: 5,
    maxTrials: 11,
    budgetMs: 15_000,
  });
  await web.release();
  await native.release();
  const toGflops = (ms: number) => gflops(STEP_FLOPS, 1000 / ms);
  const shapes = matmuls.map(({ m, k, n }) => `${m}×${k}·${k}×${n}`).join(', ');
  const ceilingRow = compareRow({
    name: 'MLP step matmuls alone (ceiling): ORT-web WASM vs onnxruntime-node',
    unit: 'GFLOP/s',
    lowerIsBetter: false,
    ours: trials.a.map(toGflops),
    reference: trials.b.map(toGflops),
    target: noTarget,
    note: `the bare kernel: one graph of the train step's ${matmuls.length} MatMuls (${shapes}) laid out as the step lays them out (X·W a MatMul, Xᵀ·D and D·Wᵀ Gemms, operands shared per layer) on constant operands (the weights may be packed once: a best case for the kernel, though a whole step keeping its activations hot in cache can pass it), each summed to one number (no copies in or out), graph optimisations off, ${CEILING_RUNS} runs a trial, onnxruntime-web WASM (128-bit SIMD, in Node) vs onnxruntime-node CPU (its native kernels use the machine's widest vectors), threads: ${THREADS} each; the ratio is the part of the web/native gap that is the kernel itself`,
  });
  // The train loop against the bare kernel on the same engine, in trials of their own
  // side by side: a ratio of figures from different moments moves with the machine's load.
  const web2 = await matmulSession(ortWeb, { executionProviders: ['wasm'] }, matmuls);
  const share = await alternate({
    a: () => webTrainer.trial(),
    b: () => web2.trial(CEILING_RUNS),
    warmups: 1,
    minTrials: 5,
    maxTrials: 11,
    budgetMs: 15_000,
  });
  await web2.release();
  const shareRow = compareRow({
    name: 'MLP train step: ORT-web WASM vs its MatMul ceiling',
    unit: 'GFLOP/s',
    lowerIsBetter: false,
    ours: share.a.map(toGflops),
    reference: share.b.map(toGflops),
    target: noTarget,
    note: `the bare ORT-web train loop (one fixed batch) against the same engine's matmuls alone, alternating, threads: ${THREADS}: the ratio is the share of the kernel's speed a whole train step keeps (the rest is the step's elementwise ops, the loss, the update and the feeds)`,
  });
  return [ceilingRow, shareRow];
}

export async function run(): Promise<BenchRow[]> {
  console.error('[ort] tiny graph…');
  const tiny = await tinyRow();
  console.error('[ort] MLP train step…');
  return [tiny, ...(await trainRows())];
}
