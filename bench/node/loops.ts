/**
 * The `loops` rows: training loops in the model worker, through the real
 * runner. `executeFlow` drives the `train.classifier` node (MLP 784→128→10,
 * batch 256, the `ort` rows' flow) on an `OrtRuntime` whose loop sessions go
 * to the product's model worker (`ModelWorkerClient` ↔ `serveModels`, here
 * in a worker thread, `model-thread.ts`) with `modelWorkerThreads` threads,
 * K steps a message, K paced by `LoopPace`:
 *
 * - against today's one-thread runner: the same flow on an `OrtRuntime`
 *   with no model worker, onnxruntime-web on `WASM_THREADS` (one) in the
 *   engine's own thread;
 * - against the bare loop on the same threads: `loop-thread.ts`, a worker
 *   thread with the same thread count running the same steps' batches
 *   (assembled by the node's `classifierBatches` and sent at once) in one
 *   message, no runner and no hops.
 *
 * Both runner sides are timed from the node's own progress calls, from the
 * end of the first step to the end of the last: with K steps a message the
 * progress comes in bursts, and both ends are burst edges (the first message
 * is one step; the last ends the loop). A cancel of a long run, from the
 * abort to the run's end, goes in the note.
 */
import { availableParallelism } from 'node:os';
import * as ortWeb from 'onnxruntime-web';
import { executeFlow } from '../../src/core/engine/executor';
import { inProcessProducers } from '../../src/core/live/producer-host';
import { classifierBatches } from '../../src/core/nodes/classifier-batches';
import { threadPort, tsThread } from '../../cli/worker-thread';
import { ModelWorkerClient, type ModelPort } from '../../workers/engine/model-client';
import { OrtRuntime } from '../../workers/engine/ort-runtime';
import { engineInfo } from '../../workers/engine/adapter';
import { modelWorkerThreads, WASM_THREADS } from '../../workers/engine/ort-loader';
import { compareRow, ratioAtLeast, type BenchRow } from '../lib/rows';
import { alternate, median } from '../lib/stats';
import { quietEvents } from './events';
import type { LoopReply, LoopRequest, LoopThreadData } from './loop-thread';
import { BATCH, dataset, nodeOrder, SPEC, trainCatalog, trainFlow } from './ort';

const THREADS = modelWorkerThreads(availableParallelism());
/** Steps of each runner trial: long enough for many messages of K. */
const STEPS = 300;
const LR = 0.05;
const MOMENTUM = 0.9;

/** The product's model worker in a worker thread, behind a `Worker`-like port. */
function modelThread(): ModelPort {
  return threadPort(tsThread(new URL('./model-thread.ts', import.meta.url)));
}

const models = new ModelWorkerClient(modelThread);
ortWeb.env.wasm.numThreads = WASM_THREADS;
ortWeb.env.logLevel = 'error';
const runtime = (worker: boolean) =>
  new OrtRuntime(
    engineInfo(null),
    () => Promise.resolve(ortWeb),
    'wasm',
    worker ? models : undefined,
  );
const yieldNow = () => new Promise<void>((resolve) => setImmediate(resolve));

/** What the model worker's runs said of their messages (the node's log). */
const paces: string[] = [];

/** Ms per step of one run of the train flow, with or without the model worker. */
async function runnerTrial(worker: boolean, signal?: AbortController): Promise<number> {
  const stamps: number[] = [];
  const errors: string[] = [];
  const events = quietEvents({
    nodeFinished: (node, outcome) => {
      if (outcome.status !== 'ok' && outcome.status !== 'cancelled')
        errors.push(`${node}: ${outcome.error}`);
    },
    progress: () => void stamps.push(performance.now()),
    log: (_node, line) => {
      if (worker && / messages of /.test(line)) paces.push(line);
    },
  });
  const result = await executeFlow({
    flow: trainFlow(signal ? 1_000_000 : STEPS),
    catalog: trainCatalog,
    inputs: {},
    runtime: runtime(worker),
    producers: inProcessProducers,
    events,
    signal: (signal ?? new AbortController()).signal,
    now: Date.now,
    yieldNow,
  });
  if (signal) return result.status === 'cancelled' ? 0 : Number.NaN;
  if (result.status !== 'ok')
    throw new Error(`train run ended ${result.status}: ${errors.join('; ')}`);
  return (stamps[STEPS - 1]! - stamps[0]!) / (STEPS - 1);
}

/** Ms from the abort to the end of a long run in the model worker, once it trains. */
async function cancelLatency(): Promise<number> {
  const abort = new AbortController();
  const running = runnerTrial(true, abort);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const asked = performance.now();
  abort.abort();
  await running;
  return performance.now() - asked;
}

interface BareLoop {
  request(message: LoopRequest, transfer?: ArrayBuffer[]): Promise<LoopReply>;
  close(): Promise<number>;
}

/** The bare loop in a thread of its own, on `threads` threads (`loop-thread.ts`). */
async function bareLoop(threads: number): Promise<BareLoop> {
  const thread = tsThread(new URL('./loop-thread.ts', import.meta.url), {
    threads,
    spec: SPEC,
    batch: BATCH,
    lr: LR,
    momentum: MOMENTUM,
    cancel: new SharedArrayBuffer(4),
  } satisfies LoopThreadData);
  await new Promise<void>((resolve, reject) => {
    thread.once('message', () => resolve());
    thread.once('error', reject);
  });
  const waiting: ((reply: LoopReply) => void)[] = [];
  thread.on('message', (reply: LoopReply) => waiting.shift()?.(reply));
  return {
    request(message, transfer = []) {
      return new Promise((resolve) => {
        waiting.push(resolve);
        thread.postMessage(message, transfer);
      });
    },
    close: () => thread.terminate(),
  };
}

/** The node's batches `from`…`from + k − 1`, back to back, for one message. */
function assemble(order: ReturnType<typeof classifierBatches>, from: number, k: number) {
  const xSize = BATCH * SPEC.inputSize;
  const ySize = BATCH * SPEC.outputSize;
  const x = new Float32Array(k * xSize);
  const y = new Float32Array(k * ySize);
  for (let i = 0; i < k; i++) {
    const batch = order.batch(from + i);
    x.set(batch.x.data, i * xSize);
    y.set(batch.y.data, i * ySize);
  }
  return { kind: 'loop' as const, k, x, y };
}

/** Ms per step of the bare loop: one step, then the other `STEPS − 1` in one message. */
async function bareTrial(loop: BareLoop): Promise<number> {
  await loop.request({ kind: 'restart' });
  const order = classifierBatches(dataset, BATCH, nodeOrder);
  const first = assemble(order, 0, 1);
  await loop.request(first, [first.x.buffer, first.y.buffer]);
  const start = performance.now();
  const rest = assemble(order, 1, STEPS - 1);
  await loop.request(rest, [rest.x.buffer, rest.y.buffer]);
  return (performance.now() - start) / (STEPS - 1);
}

const stepsPerSecond = (msPerStep: number) => 1000 / msPerStep;

export async function run(): Promise<BenchRow[]> {
  console.error(`[loops] the model worker, ${THREADS} threads…`);
  const bare = await bareLoop(THREADS);
  try {
    const threads = await alternate({
      a: () => runnerTrial(true),
      b: () => runnerTrial(false),
      warmups: 1,
      minTrials: 5,
      maxTrials: 9,
      budgetMs: 40_000,
    });
    const hops = await alternate({
      a: () => runnerTrial(true),
      b: () => bareTrial(bare),
      warmups: 1,
      minTrials: 5,
      maxTrials: 9,
      budgetMs: 40_000,
    });
    const cancels = [];
    for (let i = 0; i < 3; i++) cancels.push(await cancelLatency());
    const how = `the train node's loop in the model worker (${THREADS} onnxruntime threads), K steps a message paced to ~75 ms of work (the node's log, median run: ${paces.length > 0 ? paces.sort()[Math.floor(paces.length / 2)] : 'none'}); a cancel of a long run ended it ${cancels.map((ms) => ms.toFixed(0)).join(', ')} ms after the abort (median ${median(cancels).toFixed(0)})`;
    const flow = `executeFlow → train.classifier → OrtRuntime, MLP ${SPEC.inputSize}→${SPEC.hidden.join('→')}→${SPEC.outputSize}, batch ${BATCH}, momentum, ${STEPS} steps a run timed from the node's progress (end of step 1 to end of the last)`;
    return [
      compareRow({
        name: 'MLP train step on WASM: runner with threads (model worker) vs one-thread runner',
        unit: 'steps/s',
        lowerIsBetter: false,
        ours: threads.a.map(stepsPerSecond),
        reference: threads.b.map(stepsPerSecond),
        target: ratioAtLeast(1.4),
        note: `${flow}; ours: ${how}; reference: today's runner before the model worker, the session in the engine's own thread on ${WASM_THREADS} onnxruntime thread, one message-free step a unit`,
      }),
      compareRow({
        name: 'MLP train step on WASM: runner in the model worker vs bare loop, same threads',
        unit: 'steps/s',
        lowerIsBetter: false,
        ours: hops.a.map(stepsPerSecond),
        reference: hops.b.map(stepsPerSecond),
        target: ratioAtLeast(0.95),
        note: `${flow}; ours: ${how}; reference: a bare onnxruntime-web loop in a worker thread on the same ${THREADS} threads, the node's batches (classifierBatches, its order) assembled and sent as one message, no runner, no hops`,
      }),
    ];
  } finally {
    await bare.close();
  }
}
