/**
 * A model worker under Node, for the `loops` rows: a `worker_threads`
 * thread that owns onnxruntime-web (WASM, its own thread count) and the
 * train step's session, and runs a loop's K steps per message — the
 * engine's side sends the K batches, it sends back the K losses. The
 * weights and optimizer state stay here between messages. A cancel flag in
 * shared memory is read between steps, so a cancel lands within one step
 * whatever K is. A prototype of the model worker the issue asks for, to
 * measure the design before the product takes it.
 */
import * as ort from 'onnxruntime-web';
import { parentPort, workerData } from 'node:worker_threads';
import { buildMlpTrainStep, initMlpWeights, type MlpSpec } from '../../src/core/onnx/mlp';
import { createRandom } from '../../src/core/random';

/** The engine's side → the model worker. */
export type LoopRequest =
  | { readonly kind: 'restart' }
  /** K steps: `x` holds K batches' rows back to back, `y` their targets. */
  | {
      readonly kind: 'loop';
      readonly k: number;
      readonly x: Float32Array;
      readonly y: Float32Array;
    };

/** The model worker → the engine's side, one per request. */
export interface LoopReply {
  /** The loss of each step run (fewer than K when cancelled). */
  readonly losses: Float32Array;
  /** Ms the K steps took, here. */
  readonly ms: number;
}

export interface LoopThreadData {
  readonly threads: number;
  readonly spec: MlpSpec;
  readonly batch: number;
  readonly lr: number;
  readonly momentum: number;
  /** One Int32: non-zero cancels the loop in flight after its current step. */
  readonly cancel: SharedArrayBuffer;
}

const port = parentPort;
if (!port) throw new Error('loop-thread.ts runs only as a worker thread');
const data = workerData as LoopThreadData;
ort.env.wasm.numThreads = data.threads;
ort.env.logLevel = 'error';
const { spec, batch } = data;
const cancel = new Int32Array(data.cancel);
const step = buildMlpTrainStep(spec, { optimizer: 'momentum', loss: 'softmax_cross_entropy' });
const session = await ort.InferenceSession.create(step.model, { executionProviders: ['wasm'] });
const feeds: Record<string, ort.Tensor> = {
  [step.inputs.lr]: new ort.Tensor('float32', Float32Array.of(data.lr), []),
  [step.inputs.momentum!]: new ort.Tensor('float32', Float32Array.of(data.momentum), []),
};
const initial = initMlpWeights(spec, createRandom(0));

function restart(): void {
  for (const slot of initial.layout) {
    const values = initial.values[slot.name]!;
    feeds[step.inputs.weights[slot.name]!] = new ort.Tensor('float32', values, slot.dims);
    feeds[step.inputs.velocities[slot.name]!] = new ort.Tensor(
      'float32',
      new Float32Array(values.length),
      slot.dims,
    );
  }
}

async function loop(k: number, x: Float32Array, y: Float32Array): Promise<LoopReply> {
  const start = performance.now();
  const losses = new Float32Array(k);
  const xSize = batch * spec.inputSize;
  const ySize = batch * spec.outputSize;
  let done = 0;
  for (; done < k && Atomics.load(cancel, 0) === 0; done++) {
    feeds[step.inputs.x] = new ort.Tensor('float32', x.subarray(done * xSize, (done + 1) * xSize), [
      batch,
      spec.inputSize,
    ]);
    feeds[step.inputs.y] = new ort.Tensor('float32', y.subarray(done * ySize, (done + 1) * ySize), [
      batch,
      spec.outputSize,
    ]);
    const out = await session.run(feeds);
    for (const slot of initial.layout) {
      feeds[step.inputs.weights[slot.name]!] = out[step.outputs.weights[slot.name]!]!;
      feeds[step.inputs.velocities[slot.name]!] = out[step.outputs.velocities[slot.name]!]!;
    }
    losses[done] = Number(out[step.outputs.loss]!.data[0]);
  }
  return { losses: losses.subarray(0, done), ms: performance.now() - start };
}

restart();
port.on('message', (request: LoopRequest) => {
  if (request.kind === 'restart') {
    restart();
    port.postMessage({ losses: new Float32Array(0), ms: 0 } satisfies LoopReply);
    return;
  }
  void loop(request.k, request.x, request.y).then((reply) =>
    port.postMessage(reply, [reply.losses.buffer as ArrayBuffer]),
  );
});
port.postMessage('ready');
