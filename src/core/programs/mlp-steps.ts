/**
 * Program steps for the built-in MLP: a training loop and an evaluation step.
 *
 * Idea: the train step's graph lists every tensor it carries (weights and
 * optimizer state, `TrainStep.carried`), so the loop feeds each unit's
 * `next.*` outputs straight into the next unit's inputs without looking at
 * them; only the loss is read back every unit, and the weights once, at the
 * end. Memory comes from the graph's shapes: the carried inputs are the
 * loop's resident bytes, the estimated peak at the batch size is each
 * unit's; a dataset offered to stay on the device is reserved beside the
 * weights where it will stay (loop-dataset.ts). The train-step model asks
 * its session to keep the carried outputs on the device
 * (`mlpTrainStepSession`), so on WebGPU the weights and
 * optimizer state stay in GPU buffers from the first unit to the last; each
 * unit disposes the buffers it consumed, and every exit disposes the rest.
 * Trade-off: the trained weights cross to the CPU once, at the end, because
 * later steps and the run record need them there.
 */
import {
  disposeAll,
  hostOutput,
  isDeviceTensor,
  readTensor,
  type Feed,
  type SessionOptions,
  type Tensor,
} from '../runtime/tensor-runtime.ts';
import { isPromiseLike } from '../promise-like.ts';
import { estimateMemory } from '../onnx/memory.ts';
import type { MlpInference, TrainStep, MlpWeights, OptimizerState } from '../onnx/mlp.ts';
import { startingState, stateStepsOutput, stateTensorOutput } from './carried-state.ts';
import { programError } from './errors.ts';
import type { LoopPaceSummary } from './loop-pace.ts';
import type { GraphCaptureReport } from '../runtime/graph-capture.ts';
import { aheadLoopBody, aheadPlan, type MlpBatch, type ResidentRows } from './mlp-loop-ahead.ts';
import type { BatchBuffers } from './batch-copies.ts';
import type { ComponentStep, LoopStep, ModelId, ProgramValue, StepContext } from './program.ts';

/** Hyperparameters of the train step; those its optimizer does not use are ignored. */
export interface MlpHyperparameters {
  readonly lr: number;
  /** Momentum μ; default 0.9. */
  readonly momentum?: number;
  /** Adam β₁; default 0.9. */
  readonly beta1?: number;
  /** Adam β₂; default 0.999. */
  readonly beta2?: number;
  /** Adam ε; default 1e-8. */
  readonly epsilon?: number;
}

export interface MlpTrainLoopOptions {
  readonly name: string;
  /** The runner's model for `step.model`. */
  readonly model: ModelId;
  readonly step: TrainStep;
  /** K, the training steps. */
  readonly units: number;
  /** Rows per batch (for the peak estimate; `batch` must not exceed it). */
  readonly batchSize: number;
  readonly hyperparameters: MlpHyperparameters;
  /** Starting weights, or the output prefix of an earlier step that set them (`<prefix>.W0` …). */
  readonly initialWeights: MlpWeights | string;
  /**
   * The optimizer state to start from (a trained model's, with every state
   * tensor `step` carries): Adam's step counter goes on from its `steps`.
   * Absent: zeros, and the counter starts at 1.
   */
  readonly initialState?: OptimizerState;
  /**
   * Output prefix of the optimizer state at the end (`<prefix>.velocity.W0`
   * …, and `<prefix>.steps`, the steps it has seen in all; carried-state.ts).
   * Absent: the state is not read back.
   */
  readonly stateOutput?: string;
  /**
   * The batch of unit `index`: features `[rows, in]` and targets `[rows, out]`
   * (possibly awaited, as from a live source); `skip` when the unit has
   * nothing to learn from (it trains nothing); `end` when no batch will come
   * again (the loop ends early, with the weights trained so far). A loop
   * that keeps several batches at once offers buffers of earlier ones
   * (`into`) for a source that can write the batch there, not into its own.
   */
  batch(index: number, into?: BatchBuffers): MlpBatch | Promise<MlpBatch>;
  /** Metric the loss of every unit goes to; default `<name>.loss`. */
  readonly lossMetric?: string;
  /** Output prefix of the trained weights; default `<name>.weights`. */
  readonly weightsOutput?: string;
  /**
   * `batch(i)` depends on nothing but `i` (not on what trained before, nor
   * on time): the loop may ask for batches ahead and, where the session can
   * (`ModelSession.openLoop`), run many steps per call (mlp-loop-ahead.ts).
   */
  readonly batchesAhead?: boolean;
  /** Told when a loop that ran many steps per call ends, with how its calls went. */
  readonly onPace?: (summary: LoopPaceSummary) => void;
  /** Told when a device loop that was offered graph capture ends, with how it went. */
  readonly onGraphCapture?: (report: GraphCaptureReport) => void;
  /**
   * With `batchesAhead`, on a session that loads `step` (built with
   * `residentRows`, the model's `gatheringModel`): the loop trains with it,
   * offering the dataset to stay where the session reads it (on the device,
   * or in place) and feeding each step its rows.
   */
  readonly resident?: { readonly step: TrainStep; readonly rows: ResidentRows };
}

export type { MlpBatch };

/** Session options of a train step: its carried outputs stay on the device. */
export function mlpTrainStepSession(step: TrainStep): SessionOptions {
  return { deviceOutputs: step.carried.map((c) => c.output) };
}

/**
 * Output (a number) of a train loop: how many of its units were fed carried
 * tensors straight from the device, without a round trip through the CPU.
 */
export const deviceFedUnitsOutput = (name: string): string => `${name}.deviceFedUnits`;
/** Output (a number) of a train loop: how many of those units found them in GPU buffers. */
export const gpuFedUnitsOutput = (name: string): string => `${name}.gpuFedUnits`;
/** Outputs (numbers) of a train loop on a device: bytes per step each way, once to open, resident rows. */
export const transferOutputs = (name: string) => ({
  uploadedPerStep: `${name}.uploadedPerStep`,
  readBackPerStep: `${name}.readBackPerStep`,
  uploadedOnce: `${name}.uploadedOnce`,
  residentRows: `${name}.residentRows`,
});

const scalar = (v: number): Tensor => ({ type: 'float32', data: Float32Array.of(v), dims: [] });

/** Reads weights an earlier step output under `prefix` (`<prefix>.W0` …). */
export function readWeights(
  ctx: StepContext,
  prefix: string,
  names: readonly string[],
): Record<string, Tensor> {
  return Object.fromEntries(
    names.map((name) => {
      const value = ctx.read(`${prefix}.${name}`);
      if (typeof value === 'number')
        throw programError('invalid-program', `${prefix}.${name} is a number, not a tensor`);
      return [name, value];
    }),
  );
}

/** Outputs weights as `<prefix>.W0` …. */
export function outputWeights(ctx: StepContext, prefix: string, weights: MlpWeights): void {
  for (const slot of weights.layout) {
    const data = weights.values[slot.name];
    if (data !== undefined)
      ctx.output(`${prefix}.${slot.name}`, { type: 'float32', data, dims: slot.dims });
  }
}

/** The weights a train loop output under `prefix` (`<prefix>.W0` …), in the layout of `initial`. */
export function trainedWeights(
  outputs: Readonly<Record<string, ProgramValue>>,
  prefix: string,
  initial: MlpWeights,
): MlpWeights {
  const values: Record<string, Float32Array> = {};
  for (const slot of initial.layout) {
    const value = outputs[`${prefix}.${slot.name}`];
    if (value === undefined || typeof value === 'number' || !(value.data instanceof Float32Array))
      throw new Error(`training returned no weight ${slot.name}`);
    values[slot.name] = value.data;
  }
  return { layout: initial.layout, values };
}

/** A loop of `units` train steps of an MLP; see the module comment. */
export function mlpTrainLoop(o: MlpTrainLoopOptions): LoopStep {
  const { step } = o;
  const weightSlots = step.carried.filter((c) => c.role === 'weight');
  const memory = estimateMemory(step.graph, {
    dims: { batch: o.batchSize },
    resident: step.carried.map((c) => c.input),
  });
  const lossMetric = o.lossMetric ?? `${o.name}.loss`;
  const weightsOutput = o.weightsOutput ?? `${o.name}.weights`;
  const h = o.hyperparameters;
  return {
    kind: 'loop',
    name: o.name,
    models: [o.model],
    units: o.units,
    residentBytes: memory.residentBytes,
    peakBytes: memory.peakBytes,
    // Offered to stay on the device (a device loop, mlp-loop-ahead.ts): the pool reserves it there.
    ...(o.batchesAhead === true &&
      o.resident !== undefined && {
        dataset: {
          model: o.model,
          features: o.resident.rows.x.data.byteLength,
          labels: o.resident.rows.y.data.byteLength,
          rows: o.batchSize * Int32Array.BYTES_PER_ELEMENT,
        },
      }),
    async start(ctx) {
      const session = ctx.session(o.model);
      const start =
        typeof o.initialWeights === 'string'
          ? readWeights(
              ctx,
              o.initialWeights,
              weightSlots.map((c) => c.weight),
            )
          : Object.fromEntries(
              weightSlots.map((c) => {
                const data = (o.initialWeights as MlpWeights).values[c.weight];
                if (data === undefined)
                  throw programError('invalid-program', `${o.name}: no initial ${c.weight}`);
                return [c.weight, { type: 'float32', data, dims: c.dims } satisfies Tensor];
              }),
            );
      // One feed record for the whole loop, updated in place: each unit puts
      // its batch and the step before's `next.*` outputs where the last ones
      // were, so a unit allocates no record and copies nothing. The carried
      // entries are the loop's to own (after the first unit they are the
      // session's device outputs) and always the newest: end() reads them,
      // dispose() lets them go. Safe because the runner awaits each unit
      // before it starts the next, and a session copies its feeds' data in
      // before its run resolves.
      const feeds: Record<string, Feed> = {};
      for (const c of step.carried) {
        const w = start[c.weight];
        if (w === undefined) throw programError('invalid-program', `${o.name}: no ${c.weight}`);
        feeds[c.input] =
          c.role === 'weight' ? w : startingState(o.name, c, w.data.length, o.initialState);
      }
      // Steps the state has seen before this loop: Adam's counter goes on from there.
      const stepsBefore = o.initialState?.steps ?? 0;
      feeds[step.inputs.lr] = scalar(h.lr);
      if (step.inputs.momentum !== null) feeds[step.inputs.momentum] = scalar(h.momentum ?? 0.9);
      if (step.inputs.adam !== null) {
        feeds[step.inputs.adam.beta1] = scalar(h.beta1 ?? 0.9);
        feeds[step.inputs.adam.beta2] = scalar(h.beta2 ?? 0.999);
        feeds[step.inputs.adam.epsilon] = scalar(h.epsilon ?? 1e-8);
      }
      if (o.batchesAhead === true && session.openLoop !== undefined) {
        // The session loaded the step that gathers its rows (the model's `gatheringModel`).
        const gathers =
          o.resident?.step.inputs.resident !== undefined &&
          session.inputNames.includes(o.resident.step.inputs.resident.rows)
            ? o.resident
            : null;
        const parts = {
          name: o.name,
          step: gathers?.step ?? step,
          units: o.units,
          batchSize: o.batchSize,
          batch: (index: number, into?: BatchBuffers) => o.batch(index, into),
          constants: Object.fromEntries(
            Object.entries(feeds).filter(([input]) => !step.carried.some((c) => c.input === input)),
          ) as Record<string, Tensor>,
          initial: Object.fromEntries(step.carried.map((c) => [c.input, feeds[c.input] as Tensor])),
          lossMetric,
          weightsOutput,
          stepsBefore,
          ...(o.stateOutput !== undefined && { stateOutput: o.stateOutput }),
          fedOutputs: { device: deviceFedUnitsOutput(o.name), gpu: gpuFedUnitsOutput(o.name) },
          transferOutputs: transferOutputs(o.name),
          ...(gathers && { resident: gathers.rows }),
          ...(o.onPace && { onPace: o.onPace }),
          ...(o.onGraphCapture && { onGraphCapture: o.onGraphCapture }),
        };
        return aheadLoopBody(parts, ctx, await session.openLoop(aheadPlan(parts)));
      }
      const adamStep = step.inputs.adam?.step ?? null;
      const carried = step.carried;
      let disposed = false;
      let deviceFed = 0;
      let gpuFed = 0;
      // Units that trained: Adam's step count (a skipped unit is no step).
      let trained = 0;
      let ended = false;
      return {
        done: () => ended,
        async unit(index) {
          if (disposed) throw programError('invalid-program', `${o.name}: unit after dispose`);
          // A batch made at once (a dataset's) is taken without a turn of the microtask queue.
          const next = o.batch(index);
          const batch = isPromiseLike(next) ? await next : next;
          if (batch === 'end') ended = true;
          if (batch === 'end' || batch === 'skip') return;
          const { x, y } = batch;
          if ((x.dims[0] ?? 0) > o.batchSize)
            throw programError(
              'invalid-program',
              `${o.name}: batch of ${x.dims[0]} rows exceeds the admitted ${o.batchSize}`,
            );
          feeds[step.inputs.x] = x;
          feeds[step.inputs.y] = y;
          // A fresh scalar: the step count is a value of this unit alone.
          if (adamStep !== null) feeds[adamStep] = scalar(stepsBefore + trained + 1);
          let onDevice = 0;
          let onGpu = 0;
          for (const c of carried) {
            const t = feeds[c.input]!;
            if (isDeviceTensor(t)) {
              onDevice++;
              if (t.storage === 'gpu-buffer') onGpu++;
            }
          }
          if (onDevice === carried.length) deviceFed++;
          if (onGpu === carried.length) gpuFed++;
          const out = await session.run(feeds);
          for (const c of carried)
            if (out[c.output] === undefined) {
              disposeAll(Object.values(out));
              throw new Error(`the train step returned no ${c.output}`);
            }
          // The new tensors take the consumed ones' places; those are no longer needed.
          for (const c of carried) {
            const consumed = feeds[c.input]!;
            const next = out[c.output]!;
            feeds[c.input] = next;
            // Never dispose what the record now holds (a runtime may hand a feed back).
            if (consumed !== next && isDeviceTensor(consumed)) consumed.dispose();
          }
          trained++;
          // Reading the loss also waits for the GPU to finish the step.
          const loss = hostOutput(out, step.outputs.loss);
          ctx.emit(lossMetric, loss.data[0] ?? Number.NaN);
        },
        async end() {
          for (const c of weightSlots) {
            const t = feeds[c.input];
            if (t !== undefined) ctx.output(`${weightsOutput}.${c.weight}`, await readTensor(t));
          }
          if (o.stateOutput !== undefined) {
            for (const c of carried) {
              const t = feeds[c.input];
              if (c.role !== 'weight' && t !== undefined)
                ctx.output(stateTensorOutput(o.stateOutput, c.input), await readTensor(t));
            }
            ctx.output(stateStepsOutput(o.stateOutput), stepsBefore + trained);
          }
          ctx.output(deviceFedUnitsOutput(o.name), deviceFed);
          ctx.output(gpuFedUnitsOutput(o.name), gpuFed);
        },
        dispose() {
          if (disposed) return;
          disposed = true;
          for (const c of carried) {
            const t = feeds[c.input];
            if (t !== undefined && isDeviceTensor(t)) t.dispose();
          }
        },
      };
    },
  };
}

export interface MlpEvaluateOptions {
  readonly name: string;
  /** The runner's model for `inference.model` (weights as inputs, shared by every request). */
  readonly model: ModelId;
  readonly inference: MlpInference;
  /** Output prefix of the weights to evaluate (`<prefix>.W0` …). */
  readonly weights: string;
  /** Features `[rows, in]`. */
  readonly x: Tensor;
  /** Class of each row; when given, accuracy goes to the metric `<name>.accuracy`. */
  readonly labels?: ArrayLike<number>;
  /** Output name of the probabilities; default `<name>.probabilities`. */
  readonly output?: string;
}

/**
 * One-shot inference with weights from an earlier step: probabilities out;
 * with labels, the count of right rows out (`<name>.correct`) and the accuracy emitted.
 */
export function mlpEvaluateStep(o: MlpEvaluateOptions): ComponentStep {
  const names = Object.keys(o.inference.inputs.weights);
  const rows = o.x.dims[0] ?? 0;
  const memory = estimateMemory(o.inference.graph, { dims: { batch: rows } });
  return {
    kind: 'component',
    name: o.name,
    models: [o.model],
    // The weights are fed too, and counted in the estimate's feeds.
    peakBytes: memory.peakBytes,
    async run(ctx) {
      const weights = readWeights(ctx, o.weights, names);
      const feeds: Record<string, Feed> = { [o.inference.inputs.x]: o.x };
      for (const name of names) {
        const input = o.inference.inputs.weights[name];
        const w = weights[name];
        if (input !== undefined && w !== undefined) feeds[input] = w;
      }
      const out = await ctx.session(o.model).run(feeds);
      const probabilities = hostOutput(out, o.inference.outputs.probabilities);
      ctx.output(o.output ?? `${o.name}.probabilities`, probabilities);
      if (o.labels === undefined) return;
      const classes = probabilities.dims[1] ?? 1;
      let correct = 0;
      for (let r = 0; r < rows; r++) {
        let best = 0;
        for (let c = 1; c < classes; c++)
          if (
            (probabilities.data[r * classes + c] ?? 0) >
            (probabilities.data[r * classes + best] ?? 0)
          )
            best = c;
        if (best === o.labels[r]) correct++;
      }
      ctx.output(`${o.name}.correct`, correct);
      ctx.emit(`${o.name}.accuracy`, correct / Math.max(1, rows));
    },
  };
}
