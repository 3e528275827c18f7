/**
 * One timed MLP train loop on any onnxruntime build: onnxruntime-node in
 * Node, onnxruntime-web's WASM or WebGPU backend in a browser worker.
 *
 * Idea: every side of a throughput comparison runs this same loop — the
 * same graph, the same batches, the weights fed back each step — and only
 * the runtime and where tensors live differ. With `deviceOutputs`, every
 * output stays where the backend made it (on WebGPU a GPU buffer): the
 * weights and optimizer state never leave the device and the loss is read
 * back every `readEvery` steps, not every step. The window is time-boxed,
 * so a slow backend (a software GPU) still finishes in a few seconds; it
 * ends with a read of the last loss, so queued GPU work is inside it.
 */
import type * as OrtWeb from 'onnxruntime-web';
import { createRandom } from '../../src/core/random';
import { buildMatmulGraph, gflops, matmulFlops, matmulGraphOptions, type Matmul } from './flops';
import type { TrainModel } from './train-models';

/** The part of an onnxruntime module the loop uses (onnxruntime-node and -web both have it). */
export type OrtLike = Pick<typeof OrtWeb, 'Tensor' | 'InferenceSession'>;
type OrtTensor = OrtWeb.Tensor;

/** One batch's rows and one-hot targets, as CPU arrays. */
export interface Batch {
  readonly x: Float32Array;
  readonly y: Float32Array;
}

const size = (dims: readonly number[]) => dims.reduce((a, b) => a * b, 1);

/** `count` batches of random features with labels `row % classes`, one-hot. */
export function makeBatches(model: TrainModel, count: number, seed = 1): Batch[] {
  const random = createRandom(seed);
  const [rows, classes] = model.yDims;
  return Array.from({ length: count }, (_, b) => {
    const x = new Float32Array(size(model.xDims));
    for (let i = 0; i < x.length; i++) x[i] = random();
    const y = new Float32Array(rows * classes);
    for (let row = 0; row < rows; row++) y[row * classes + ((b * rows + row) % classes)] = 1;
    return { x, y };
  });
}

/** Bytes of one batch's features and targets: what a step must at least move if its batch is not on the device. */
export const batchBytes = (model: TrainModel): number =>
  (size(model.xDims) + size(model.yDims)) * Float32Array.BYTES_PER_ELEMENT;

export interface TrainLoopOptions {
  readonly ort: OrtLike;
  readonly sessionOptions: OrtWeb.InferenceSession.SessionOptions;
  readonly model: TrainModel;
  readonly batches: readonly Batch[];
  /** Keep every output on the device (`preferredOutputLocation: 'gpu-buffer'`). */
  readonly deviceOutputs?: boolean;
  /**
   * Makes a batch's tensors; by default CPU tensors over its arrays (the
   * runtime copies them in every step). A WebGPU caller may upload them
   * once and return GPU tensors instead.
   */
  readonly place?: (batch: Batch) => Promise<{ x: OrtTensor; y: OrtTensor }>;
  /** Untimed steps first (the first runs of a session are slow); at least one. */
  readonly warmSteps: number;
  /**
   * The timed window's length: it runs at least `minSteps` steps and, with
   * `deviceOutputs`, at most twice as many as the last warm step's time says
   * fit in it.
   */
  readonly seconds: number;
  readonly minSteps?: number;
  /** The loss is read back every this many steps (and at the window's end). */
  readonly readEvery: number;
  /** Called right before the timed window opens (e.g. to zero a byte counter). */
  readonly onTimedStart?: () => void;
}

export interface TrainLoopResult {
  readonly steps: number;
  readonly ms: number;
  readonly stepsPerSecond: number;
  readonly gflops: number;
  /** The loss read first and last in the timed window (it should fall). */
  readonly firstLoss: number;
  readonly lastLoss: number;
}

const LR = 0.05;
const MOMENTUM = 0.9;

/** Runs the loop and releases its session; see the module comment. */
export async function trainLoop(options: TrainLoopOptions): Promise<TrainLoopResult> {
  const { ort, model } = options;
  const { step } = model;
  const session = await ort.InferenceSession.create(step.model, {
    ...options.sessionOptions,
    ...(options.deviceOutputs && { preferredOutputLocation: 'gpu-buffer' as const }),
  });
  try {
    const place =
      options.place ??
      ((b: Batch) =>
        Promise.resolve({
          x: new ort.Tensor('float32', b.x, model.xDims),
          y: new ort.Tensor('float32', b.y, model.yDims),
        }));
    const placed: { x: OrtTensor; y: OrtTensor }[] = [];
    for (const b of options.batches) placed.push(await place(b));
    // Weights from the model's starting values, optimizer state from zeros.
    let carried: Record<string, OrtTensor> = {};
    for (const c of step.carried)
      carried[c.input] = new ort.Tensor(
        'float32',
        c.role === 'weight' ? model.initial.values[c.weight]! : new Float32Array(size(c.dims)),
        c.dims,
      );
    const scalars = {
      [step.inputs.lr]: new ort.Tensor('float32', Float32Array.of(LR), []),
      [step.inputs.momentum!]: new ort.Tensor('float32', Float32Array.of(MOMENTUM), []),
    };
    let done = 0;
    /** One step; the loss is read back when `read`, else let go on the device. */
    const trainStep = async (read: boolean): Promise<number | null> => {
      const { x, y } = placed[done++ % placed.length]!;
      const out = await session.run({
        ...carried,
        ...scalars,
        [step.inputs.x]: x,
        [step.inputs.y]: y,
      });
      const next: Record<string, OrtTensor> = {};
      for (const c of step.carried) next[c.input] = out[c.output]!;
      // The step's inputs were the last step's outputs: on the device they are freed by hand.
      for (const tensor of Object.values(carried))
        if (tensor.location === 'gpu-buffer') tensor.dispose();
      carried = next;
      const loss = out[step.outputs.loss]!;
      const value = read ? Number((await loss.getData())[0]) : null;
      if (loss.location === 'gpu-buffer') loss.dispose();
      return value;
    };

    // Every warm step reads its loss, so the last one's time is a whole step's (the GPU's
    // queue included). With outputs on the device it caps the window's steps (at twice
    // what it says fit), since there `run()` resolves before the device has done the work
    // and a slow device would otherwise queue far past the window. On the CPU a run is
    // done when it resolves, so the clock alone ends the window.
    let warmMs = 0;
    for (let i = 0; i < options.warmSteps; i++) {
      const warmStart = performance.now();
      await trainStep(true);
      warmMs = performance.now() - warmStart;
    }
    const minSteps = options.minSteps ?? 3;
    const maxSteps = options.deviceOutputs
      ? Math.max(minSteps, Math.ceil((2 * options.seconds * 1000) / Math.max(warmMs, 0.01)))
      : Number.POSITIVE_INFINITY;
    options.onTimedStart?.();
    const start = performance.now();
    let steps = 0;
    let firstLoss = Number.NaN;
    let lastLoss = Number.NaN;
    for (;;) {
      steps++;
      const last =
        steps >= maxSteps ||
        (steps >= minSteps && performance.now() - start >= options.seconds * 1000);
      const loss = await trainStep(last || steps % options.readEvery === 0);
      if (loss !== null) {
        if (Number.isNaN(firstLoss)) firstLoss = loss;
        lastLoss = loss;
      }
      if (last) break;
    }
    const ms = performance.now() - start;
    for (const tensor of Object.values(carried))
      if (tensor.location === 'gpu-buffer') tensor.dispose();
    const stepsPerSecond = (steps * 1000) / ms;
    return {
      steps,
      ms,
      stepsPerSecond,
      gflops: gflops(model.flops, stepsPerSecond),
      firstLoss,
      lastLoss,
    };
  } finally {
    await session.release();
  }
}

/** Runs/s and GFLOP/s of the given matmuls alone, one graph, in a tight loop. */
export async function matmulCeiling(
  ort: OrtLike,
  sessionOptions: OrtWeb.InferenceSession.SessionOptions,
  matmuls: readonly Matmul[],
  seconds: number,
): Promise<{ runsPerSecond: number; gflops: number; runs: number }> {
  const session = await ort.InferenceSession.create(buildMatmulGraph(matmuls), {
    ...sessionOptions,
    ...matmulGraphOptions,
  });
  try {
    const feeds = { scale: new ort.Tensor('float32', Float32Array.of(1), [1]) };
    for (let i = 0; i < 3; i++) await session.run(feeds);
    const start = performance.now();
    let runs = 0;
    while (runs < 3 || performance.now() - start < seconds * 1000) {
      await session.run(feeds);
      runs++;
    }
    const runsPerSecond = (runs * 1000) / (performance.now() - start);
    return { runs, runsPerSecond, gflops: gflops(matmulFlops(matmuls), runsPerSecond) };
  } finally {
    await session.release();
  }
}

/**
 * The matmuls of `matmuls` alone as a session for alternating trials: each
 * `trial(runs)` times that many runs back to back, ms per run.
 */
export async function matmulSession(
  ort: OrtLike,
  sessionOptions: OrtWeb.InferenceSession.SessionOptions,
  matmuls: readonly Matmul[],
) {
  const session = await ort.InferenceSession.create(buildMatmulGraph(matmuls), {
    ...sessionOptions,
    ...matmulGraphOptions,
  });
  const feeds = { scale: new ort.Tensor('float32', Float32Array.of(1), [1]) };
  return {
    flops: matmulFlops(matmuls),
    async trial(runs: number): Promise<number> {
      await session.run(feeds);
      const start = performance.now();
      for (let i = 0; i < runs; i++) await session.run(feeds);
      return (performance.now() - start) / runs;
    },
    release: () => session.release(),
  };
}
