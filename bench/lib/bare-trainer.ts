/**
 * A bare train loop for the node benches: one onnxruntime session of a
 * model's train step, the weights and velocities fed back each step, timed
 * over a fixed number of steps from fresh weights each trial — what a
 * runner's train node does, without the runner.
 *
 * Idea: `prepared` trains each step on the node's next batch, assembled by
 * the node's own `classifierBatches` (against the runner, whose node does
 * the same); `fixed` on one batch made once (against another engine). Every
 * trial starts again from the initial weights and first batch, as a runner
 * trial does: trained on for hundreds of steps, the weights drift into a
 * regime (saturated softmax, tiny gradients) with another speed.
 */
import type * as OrtWeb from 'onnxruntime-web';
import type { ClassifierBatches } from '../../src/core/nodes/classifier-batches';
import type { MlpWeights } from '../../src/core/onnx/mlp-spec';
import type { TrainStep } from '../../src/core/onnx/train-step';
import type { OrtLike } from './train-loop';
import { compareRow, type BenchRow, type Target } from './rows';

/** What one model's bare loop trains: its step, weights, fixed batch and the node's batches. */
export interface BareTraining {
  readonly step: TrainStep;
  readonly initial: MlpWeights;
  /** The batch a `fixed` loop trains on, and its dims. */
  readonly fixed: {
    readonly x: Float32Array;
    readonly xDims: number[];
    readonly y: Float32Array;
    readonly yDims: number[];
  };
  /** The node's batches in its order, from the first (a fresh order each trial). */
  readonly batches: () => ClassifierBatches;
  readonly lr: number;
  readonly momentum: number;
  readonly warmSteps: number;
  readonly timedSteps: number;
}

/** The loop on `ort`; `trial()` resolves with ms per step over the timed steps. */
export async function bareTrainer(
  ort: OrtLike,
  options: OrtWeb.InferenceSession.SessionOptions,
  batches: 'prepared' | 'fixed',
  training: BareTraining,
) {
  const { step, initial, fixed } = training;
  const session = await ort.InferenceSession.create(step.model, options);
  const feeds: Record<string, OrtWeb.Tensor> = {
    [step.inputs.x]: new ort.Tensor('float32', fixed.x, fixed.xDims),
    [step.inputs.y]: new ort.Tensor('float32', fixed.y, fixed.yDims),
    [step.inputs.lr]: new ort.Tensor('float32', Float32Array.of(training.lr), []),
    [step.inputs.momentum!]: new ort.Tensor('float32', Float32Array.of(training.momentum), []),
  };
  let order = training.batches();
  let next = 0;
  const restart = () => {
    order = training.batches();
    next = 0;
    for (const slot of initial.layout) {
      const values = initial.values[slot.name]!;
      feeds[step.inputs.weights[slot.name]!] = new ort.Tensor('float32', values, slot.dims);
      feeds[step.inputs.velocities[slot.name]!] = new ort.Tensor(
        'float32',
        new Float32Array(values.length),
        slot.dims,
      );
    }
  };
  const run = async (n: number) => {
    for (let i = 0; i < n; i++) {
      if (batches === 'prepared') {
        const batch = order.batch(next++);
        feeds[step.inputs.x] = new ort.Tensor('float32', batch.x.data, batch.x.dims);
        feeds[step.inputs.y] = new ort.Tensor('float32', batch.y.data, batch.y.dims);
      }
      const out = await session.run(feeds);
      for (const slot of initial.layout) {
        feeds[step.inputs.weights[slot.name]!] = out[step.outputs.weights[slot.name]!]!;
        feeds[step.inputs.velocities[slot.name]!] = out[step.outputs.velocities[slot.name]!]!;
      }
    }
  };
  return {
    /** From the initial weights: the warm steps untimed, then ms per step over the timed ones. */
    async trial(): Promise<number> {
      restart();
      await run(training.warmSteps);
      const start = performance.now();
      await run(training.timedSteps);
      return (performance.now() - start) / training.timedSteps;
    },
    release: () => session.release(),
  };
}

/**
 * The three bare loops of one training that a train-step bench compares:
 * ORT-web on the node's batches (against the runner), and ORT-web and
 * onnxruntime-node on one fixed batch (the engines alone), the native one
 * with `threads` threads.
 */
export async function bareTrainers(
  training: BareTraining,
  engines: { readonly web: OrtLike; readonly native: OrtLike; readonly threads: number },
) {
  const wasm = { executionProviders: ['wasm'] };
  const web = await bareTrainer(engines.web, wasm, 'prepared', training);
  const webFixed = await bareTrainer(engines.web, wasm, 'fixed', training);
  const native = await bareTrainer(
    engines.native,
    { executionProviders: ['cpu'], intraOpNumThreads: engines.threads },
    'fixed',
    training,
  );
  return {
    web,
    webFixed,
    native,
    async release(): Promise<void> {
      await web.release();
      await webFixed.release();
      await native.release();
    },
  };
}

/** A train-step row in steps/s (higher is better) from A/B trials in ms per step. */
export function stepsRow(input: {
  readonly name: string;
  readonly trials: { readonly a: readonly number[]; readonly b: readonly number[] };
  readonly target: Target;
  readonly note: string;
}): BenchRow {
  const stepsPerSecond = (msPerStep: number) => 1000 / msPerStep;
  return compareRow({
    name: input.name,
    unit: 'steps/s',
    lowerIsBetter: false,
    ours: input.trials.a.map(stepsPerSecond),
    reference: input.trials.b.map(stepsPerSecond),
    target: input.target,
    note: input.note,
  });
}
