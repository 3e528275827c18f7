/**
 * The `loops` rows: a prototype of the model worker, measured before the
 * product takes it. onnxruntime-web runs in a thread of its own
 * (`loop-thread.ts`) with `max(2, cores − 1)` threads; the engine's side
 * assembles each step's batch with the train node's own `classifierBatches`
 * and hands the worker a loop of K steps per message, K adapted so a
 * message carries about `MESSAGE_MS` of work, two messages in flight so the
 * worker never waits for the next batches. A cancel flag in shared memory
 * stops a loop between steps.
 *
 * - against the one-thread loop in the engine's own thread (how the runner
 *   trains today: `WASM_THREADS`, and the runner is within a few percent of
 *   that bare loop, see the `ort` rows): what the worker's threads give;
 * - against the same worker running the whole timed loop in one message
 *   (same threads, same batch assembly, no hops): what the hops cost.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import * as ortWeb from 'onnxruntime-web';
import { classifierBatches } from '../../src/core/nodes/classifier-batches';
import { compareRow, ratioAtLeast, type BenchRow } from '../lib/rows';
import { alternate, median } from '../lib/stats';
import type { LoopReply, LoopRequest, LoopThreadData } from './loop-thread';
import { BATCH, bareTrainer, dataset, nodeOrder, SPEC, TIMED_STEPS, WARM_STEPS } from './ort';

/** Work a message should carry: long enough to pay the hop, short enough for a cancel. */
const MESSAGE_MS = 75;
const MAX_K = 64;
const THREADS = Math.max(2, availableParallelism() - 1);
/** The timed loop is longer than the `ort` rows' so there are several messages of K. */
const LOOP_STEPS = TIMED_STEPS * 2;

interface ModelWorker {
  request(message: LoopRequest, transfer?: ArrayBuffer[]): Promise<LoopReply>;
  cancel(on: boolean): void;
  close(): Promise<number>;
}

async function spawnModelWorker(threads: number): Promise<ModelWorker> {
  const cancel = new SharedArrayBuffer(4);
  const flag = new Int32Array(cancel);
  const entry = new URL('./loop-thread.ts', import.meta.url).href;
  const thread = new Worker(
    `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`,
    {
      eval: true,
      workerData: {
        threads,
        spec: SPEC,
        batch: BATCH,
        lr: 0.05,
        momentum: 0.9,
        cancel,
      } satisfies LoopThreadData,
    },
  );
  await new Promise<void>((resolve, reject) => {
    thread.once('message', () => resolve());
    thread.once('error', reject);
  });
  // Replies come in the order of the requests: the worker runs one message at a time.
  const waiting: ((reply: LoopReply) => void)[] = [];
  thread.on('message', (reply: LoopReply) => waiting.shift()?.(reply));
  return {
    request(message, transfer = []) {
      return new Promise((resolve) => {
        waiting.push(resolve);
        thread.postMessage(message, transfer);
      });
    },
    cancel: (on) => void Atomics.store(flag, 0, on ? 1 : 0),
    close: () => thread.terminate(),
  };
}

/** The next `k` batches of the node's order, back to back, for one message. */
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

const clampK = (msPerStep: number) =>
  Math.max(1, Math.min(MAX_K, Math.round(MESSAGE_MS / Math.max(msPerStep, 0.01))));

/** What the K-step trials chose, for the note. */
const chosen: { k: number[]; messageMs: number[] } = { k: [], messageMs: [] };

/**
 * Ms per step of `LOOP_STEPS` steps after the warm ones, from fresh weights.
 * `whole`: the timed steps in one message; otherwise loops of K, K adapted,
 * two messages in flight.
 */
async function workerTrial(worker: ModelWorker, whole: boolean): Promise<number> {
  await worker.request({ kind: 'restart' });
  const order = classifierBatches(dataset, BATCH, nodeOrder);
  const warm = assemble(order, 0, WARM_STEPS);
  const warmReply = await worker.request(warm, [warm.x.buffer, warm.y.buffer]);
  let next = WARM_STEPS;
  const end = WARM_STEPS + LOOP_STEPS;
  const start = performance.now();
  if (whole) {
    const all = assemble(order, next, LOOP_STEPS);
    await worker.request(all, [all.x.buffer, all.y.buffer]);
    return (performance.now() - start) / LOOP_STEPS;
  }
  let k = clampK(warmReply.ms / WARM_STEPS);
  const inFlight: Promise<LoopReply>[] = [];
  const send = () => {
    const n = Math.min(k, end - next);
    const message = assemble(order, next, n);
    next += n;
    chosen.k.push(n);
    inFlight.push(worker.request(message, [message.x.buffer, message.y.buffer]));
  };
  send();
  while (inFlight.length > 0) {
    if (next < end) send();
    const reply = await inFlight.shift()!;
    if (reply.losses.length > 0) {
      chosen.messageMs.push(reply.ms);
      k = clampK(reply.ms / reply.losses.length);
    }
  }
  return (performance.now() - start) / LOOP_STEPS;
}

/** Ms from setting the cancel flag to the reply of a loop of `MAX_K` steps in flight. */
async function cancelLatency(worker: ModelWorker): Promise<number> {
  await worker.request({ kind: 'restart' });
  const order = classifierBatches(dataset, BATCH, nodeOrder);
  const message = assemble(order, 0, MAX_K);
  const reply = worker.request(message, [message.x.buffer, message.y.buffer]);
  await new Promise((resolve) => setTimeout(resolve, 2 * MESSAGE_MS));
  const asked = performance.now();
  worker.cancel(true);
  await reply;
  const ms = performance.now() - asked;
  worker.cancel(false);
  return ms;
}

const stepsPerSecond = (msPerStep: number) => 1000 / msPerStep;

export async function run(): Promise<BenchRow[]> {
  console.error(`[loops] model worker, ${THREADS} threads…`);
  ortWeb.env.wasm.numThreads = 1;
  const inProcess = await bareTrainer(ortWeb, { executionProviders: ['wasm'] }, 'prepared');
  const worker = await spawnModelWorker(THREADS);
  try {
    const threads = await alternate({
      a: () => workerTrial(worker, false),
      b: () => inProcess.trial(),
      warmups: 1,
      minTrials: 5,
      maxTrials: 9,
      budgetMs: 30_000,
    });
    const hops = await alternate({
      a: () => workerTrial(worker, false),
      b: () => workerTrial(worker, true),
      warmups: 1,
      minTrials: 5,
      maxTrials: 9,
      budgetMs: 30_000,
    });
    const cancels = [];
    for (let i = 0; i < 3; i++) cancels.push(await cancelLatency(worker));
    const how = `K steps a message adapted to about ${MESSAGE_MS} ms of work (K chosen: median ${median(chosen.k)}, ${Math.min(...chosen.k)}–${Math.max(...chosen.k)}; a message's work: median ${median(chosen.messageMs).toFixed(0)} ms), two messages in flight, batches assembled by the node's classifierBatches on the engine's side and transferred; cancel (a shared flag read between steps) landed in ${cancels.map((ms) => ms.toFixed(0)).join(', ')} ms`;
    return [
      compareRow({
        name: `MLP train loop: model worker (${THREADS} threads) vs one-thread in-process loop`,
        unit: 'steps/s',
        lowerIsBetter: false,
        ours: threads.a.map(stepsPerSecond),
        reference: threads.b.map(stepsPerSecond),
        target: ratioAtLeast(1.4),
        note: `a prototype of the model worker: onnxruntime-web WASM in a worker thread of its own, ${THREADS} threads, ${how}; vs the bare one-thread loop in the engine's own thread (today's runner's configuration), ${LOOP_STEPS} vs ${TIMED_STEPS} timed steps after ${WARM_STEPS} warm ones, MLP 784→128→10, batch ${BATCH}`,
      }),
      compareRow({
        name: 'MLP train loop: model worker, K steps a message vs whole loop',
        unit: 'steps/s',
        lowerIsBetter: false,
        ours: hops.a.map(stepsPerSecond),
        reference: hops.b.map(stepsPerSecond),
        target: ratioAtLeast(0.95),
        note: `the same worker and threads (${THREADS}); ours: loops of K (${how}); reference: the ${LOOP_STEPS} timed steps' batches assembled and sent as one message (the bare loop on the same threads, no hops)`,
      }),
    ];
  } finally {
    await inProcess.release();
    await worker.close();
  }
}
