/**
 * One device-loop row of the GPU bench: the product's own WebGPU training
 * loop (`OrtRuntime.openLoop`, device-loop.ts) on one of the bench's models,
 * with graph capture or without — the dataset uploaded once, each step fed
 * its row indices, the losses read back once per call of `perCall` steps.
 *
 * Idea: the bare train loop (`bench/lib/train-loop.ts`) says what
 * onnxruntime can do; this row says what a Flowbench run gets, and the two
 * rows of it (captured, uncaptured) train the same batches from the same
 * weights, so their losses must agree bit for bit. The window is
 * time-boxed like the other rows, whole calls at a time.
 */
import { loadBrowserOrt } from '../../workers/engine/ort-loader';
import { OrtRuntime } from '../../workers/engine/ort-runtime';
import { engineInfo } from '../../workers/engine/adapter';
import type { LoopStepFeeds, Tensor } from '../../src/core/runtime/tensor-runtime';
import { gflops } from '../lib/flops';
import { makeBatches } from '../lib/train-loop';
import { benchModel, residentTrainStep } from '../lib/train-models';
import type { LoopReport, LoopRequest } from './gpu-api';

const LR = 0.05;
const MOMENTUM = 0.9;
/** Batches in the dataset: the bare loop's eight, one after another. */
const BATCHES = 8;

const float32 = (data: Float32Array, dims: readonly number[]): Tensor => ({
  type: 'float32',
  data,
  dims,
});

/** Runs the row; `moved` is the page's count of bytes at the WebGPU API (reset when the window opens). */
export async function deviceLoopRow(
  request: LoopRequest,
  moved: { up: number; down: number },
): Promise<LoopReport> {
  const model = benchModel(request.model);
  const step = residentTrainStep(request.model, request.optimizer);
  const adam = step.inputs.adam;
  const gathered = step.inputs.resident;
  if (gathered === undefined) throw new Error('the resident train step gathers no rows');
  const ort = await loadBrowserOrt('webgpu', 1);
  const adapter = { vendor: '', architecture: '', isFallbackAdapter: false };
  const runtime = new OrtRuntime(
    engineInfo(adapter),
    () => Promise.resolve(ort),
    'webgpu',
    undefined,
    {
      graphCapture: request.graphCapture,
    },
  );
  try {
    const batches = makeBatches(model, BATCHES);
    const rowsPerBatch = model.xDims[0]!;
    const x = new Float32Array(batches.length * batches[0]!.x.length);
    const y = new Float32Array(batches.length * batches[0]!.y.length);
    batches.forEach((b, i) => {
      x.set(b.x, i * b.x.length);
      y.set(b.y, i * b.y.length);
    });
    const session = await runtime.createSession(step.model, 'webgpu', { loops: true });
    if (session.openLoop === undefined) throw new Error('the WebGPU session offers no device loop');
    const scalar = (v: number) => float32(Float32Array.of(v), []);
    const loop = await session.openLoop({
      carried: step.carried.map((c) => ({ input: c.input, output: c.output })),
      initial: Object.fromEntries(
        step.carried.map((c) => [
          c.input,
          float32(
            c.role === 'weight'
              ? model.initial.values[c.weight]!.slice()
              : new Float32Array(c.dims.reduce((a, b) => a * b, 1)),
            c.dims,
          ),
        ]),
      ),
      constants: {
        [step.inputs.lr]: scalar(LR),
        ...(step.inputs.momentum !== null && { [step.inputs.momentum]: scalar(MOMENTUM) }),
        ...(adam !== null && {
          [adam.beta1]: scalar(0.9),
          [adam.beta2]: scalar(0.999),
          [adam.epsilon]: scalar(1e-8),
        }),
      },
      read: [step.outputs.loss],
      resident: {
        [gathered.x]: float32(x, [batches.length * rowsPerBatch, ...model.xDims.slice(1)]),
        [gathered.y]: float32(y, [batches.length * rowsPerBatch, model.yDims[1]]),
      },
    });
    if (loop.resident !== true) throw new Error('the dataset did not stay on the device');
    const signal = new AbortController().signal;
    let next = 0;
    /** The next `count` steps' feeds: batch `step % 8`'s rows. */
    const feeds = (count: number): LoopStepFeeds[] =>
      Array.from({ length: count }, () => {
        const from = (next++ % batches.length) * rowsPerBatch;
        return {
          [gathered.rows]: {
            type: 'int32',
            data: Int32Array.from({ length: rowsPerBatch }, (_, i) => from + i),
            dims: [rowsPerBatch],
          },
          // Adam's step count, from 1: a feed of its own each step.
          ...(adam !== null && { [adam.step]: scalar(next) }),
        };
      });
    const losses: number[] = [];
    try {
      losses.push(...(await loop.run(feeds(request.warmSteps), signal)).values[step.outputs.loss]!);
      moved.up = 0;
      moved.down = 0;
      let up = 0;
      let down = 0;
      let steps = 0;
      const max = request.maxSteps ?? Number.POSITIVE_INFINITY;
      const start = performance.now();
      while (
        steps < request.minSteps ||
        (steps < max && performance.now() - start < request.seconds * 1000)
      ) {
        const result = await loop.run(feeds(Math.min(request.perCall, max - steps)), signal);
        losses.push(...result.values[step.outputs.loss]!);
        steps += result.ran;
        up += result.transfers?.uploaded ?? 0;
        down += result.transfers?.readBack ?? 0;
      }
      const ms = performance.now() - start;
      const stepsPerSecond = (steps * 1000) / ms;
      return {
        steps,
        ms,
        stepsPerSecond,
        gflops: gflops(model.flops, stepsPerSecond),
        losses,
        uploadBytes: moved.up,
        downloadBytes: moved.down,
        ledgerUploadBytes: up,
        ledgerDownloadBytes: down,
        capture: loop.graphCapture?.() ?? null,
      };
    } finally {
      await loop.close();
    }
  } finally {
    await runtime.releaseAll();
  }
}
