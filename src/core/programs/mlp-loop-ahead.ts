/**
 * An MLP train loop whose steps run where its session lives, many per call
 * (`ModelSession.openLoop`: onnxruntime in a model worker with threads of
 * its own, or beside the engine where no worker hosts it, session-loop.ts),
 * while the runner still sees one unit per step.
 *
 * Idea: when the runner asks for a unit and none is waiting, the body
 * gathers the batches of the next units (as many as `LoopPace` says fill a
 * message), each in buffers of its own (the source rewrites its own: it
 * writes the batch into a message back's buffers, or the batch is copied,
 * batch-copies.ts), and sends them in one call; the carried weights and
 * optimizer state never leave the model's side. The losses come back
 * together and each unit emits its own, so the metric series, the progress
 * and a cancel between units read as before. The next message goes as soon
 * as one comes back, so the model works through it while the runner takes
 * the units just returned (the engine's turns, a busy machine's scheduling,
 * are hidden). Where the model runs on a thread of its own (a model
 * worker's loop, `StepLoop.ahead`), two messages are kept on their way: the
 * next one's batches are gathered while the model works through one, and
 * it starts on them as soon as it is done. Trade-off: it asks for batches
 * ahead of the units that train on them, so only a loop whose `batch(i)`
 * depends on nothing but `i` may take this path
 * (`MlpTrainLoopOptions.batchesAhead`); a live source trains one step a
 * call.
 */
import type { LoopBody, StepContext } from './program.ts';
import type { LoopStepFeeds, StepLoop, StepLoopPlan, Tensor } from '../runtime/tensor-runtime.ts';
import type { TrainStep } from '../onnx/mlp.ts';
import { stateStepsOutput, stateTensorOutput } from './carried-state.ts';
import { programError } from './errors.ts';
import { LoopPace, type LoopPaceSummary } from './loop-pace.ts';
import { BatchCopies, type Batch, type BatchBuffers } from './batch-copies.ts';
import type { GraphCaptureReport } from '../runtime/graph-capture.ts';

/** What a train loop's unit trains on; see `MlpTrainLoopOptions.batch` (mlp-steps.ts). */
export type MlpBatch = Batch | 'skip' | 'end';

/** What the loop's body needs of the train loop it stands in for. */
export interface AheadLoopParts {
  readonly name: string;
  readonly step: TrainStep;
  readonly units: number;
  readonly batchSize: number;
  /** Unit `index`'s batch, written into `into` where the source can (`MlpTrainLoopOptions.batch`). */
  readonly batch: (index: number, into?: BatchBuffers) => MlpBatch | Promise<MlpBatch>;
  /** Feeds the same every step (learning rate, optimizer coefficients). */
  readonly constants: Record<string, Tensor>;
  /** Every carried input's first value. */
  readonly initial: Record<string, Tensor>;
  readonly lossMetric: string;
  /** Where the trained weights go, as `<prefix>.<weight>`. */
  readonly weightsOutput: string;
  /** Steps the optimizer state in `initial` has seen (Adam's counter goes on from there); default 0. */
  readonly stepsBefore?: number;
  /** Where the optimizer state goes at the end (carried-state.ts); absent: it is not read back. */
  readonly stateOutput?: string;
  /** Outputs the loop writes beside the weights: device-fed and GPU-fed units. */
  readonly fedOutputs: { readonly device: string; readonly gpu: string };
  /** Told once the loop has ended, with how its messages went. */
  readonly onPace?: (summary: LoopPaceSummary) => void;
  /** Told once the loop has ended, where it was offered graph capture: how that went. */
  readonly onGraphCapture?: (report: GraphCaptureReport) => void;
  /**
   * Where `step` gathers its batch (built with `residentRows`): the whole
   * dataset, offered to stay on the device, and each unit's row indices.
   */
  readonly resident?: ResidentRows;
  /** Outputs the loop writes of the bytes that crossed between CPU and device (a device loop only). */
  readonly transferOutputs?: TransferOutputs;
}

/** A dataset a train step gathers its batches from (`TrainStepOptions.residentRows`). */
export interface ResidentRows {
  /** Every row's features and targets, as the step's `dataset.x`, `dataset.y`. */
  readonly x: Tensor;
  readonly y: Tensor;
  /** Unit `index`'s row indices (the rows `batch(index)` holds, in order). */
  rows(index: number): Int32Array | 'skip' | 'end';
}

/** Output names of a loop's transfer counts: bytes per step each way, and once to open it. */
export interface TransferOutputs {
  readonly uploadedPerStep: string;
  readonly readBackPerStep: string;
  readonly uploadedOnce: string;
  /** 1 when the dataset stayed on the device, 0 when each step uploaded its batch. */
  readonly residentRows: string;
}

/** What a unit found when its message came back. */
type Gone = number | 'skip' | 'end';

const scalar = (v: number): Tensor => ({ type: 'float32', data: Float32Array.of(v), dims: [] });

/** The body of `parts`' loop over `opened`; see the module comment. */
export function aheadLoopBody(
  parts: AheadLoopParts,
  ctx: StepContext,
  opened: StepLoop,
  pace = new LoopPace(opened.messageMs === undefined ? {} : { targetMs: opened.messageMs }),
): LoopBody {
  const { step, name } = parts;
  const adamStep = step.inputs.adam?.step ?? null;
  const weightSlots = step.carried.filter((c) => c.role === 'weight');
  /** Results of units that came back and the runner has not yet taken, from `head` on. */
  let waiting: Gone[] = [];
  let head = 0;
  /** The first unit not sent yet; steps sent that train (Adam's count); an `end` was sent. */
  let next = 0;
  let sentTraining = parts.stepsBefore ?? 0;
  let sentEnd = false;
  /**
   * Messages sent and not yet taken, oldest first: the model works through
   * them while the runner takes the one before (`StepLoop.ahead` of them).
   */
  const inFlight: Promise<Gone[]>[] = [];
  const ahead = Math.max(1, opened.ahead ?? 1);
  let trained = 0;
  let ended = false;
  let closed = false;
  /** Bytes that crossed for the steps run, and the steps they ran. */
  let uploaded = 0;
  let readBack = 0;
  let stepsRun = 0;
  const copies = new BatchCopies();
  const gathered = step.inputs.resident;
  if (gathered !== undefined && parts.resident === undefined)
    throw programError(
      'invalid-program',
      `${name}: the train step gathers rows but has no dataset`,
    );

  /** Unit `index`'s feeds for a step that gathers its batch, or what it found instead. */
  async function gatherFeeds(
    index: number,
    rowsInput: string,
  ): Promise<Record<string, Tensor> | 'skip' | 'end'> {
    if (opened.resident === true) {
      const rows = parts.resident!.rows(index);
      if (rows === 'skip' || rows === 'end') return rows;
      checkRows(rows.length);
      return { [rowsInput]: { type: 'int32', data: rows.slice(), dims: [rows.length] } };
    }
    // The dataset did not fit on the device: the batch is the step's dataset, its rows in order.
    const found = await batchOf(index);
    if (found === 'skip' || found === 'end') return found;
    const count = found.x.dims[0] ?? 0;
    checkRows(count);
    return {
      [gathered!.x]: found.x,
      [gathered!.y]: found.y,
      [rowsInput]: {
        type: 'int32',
        data: Int32Array.from({ length: count }, (_, i) => i),
        dims: [count],
      },
    };
  }

  /** Unit `index`'s batch in buffers of its own, kept until its message comes back. */
  async function batchOf(index: number): Promise<MlpBatch> {
    const into = copies.spare();
    const found = await parts.batch(index, into);
    if (found === 'skip' || found === 'end') {
      copies.unused(into);
      return found;
    }
    return copies.keep(found, into);
  }

  function checkRows(count: number): void {
    if (count > parts.batchSize)
      throw programError(
        'invalid-program',
        `${name}: batch of ${count} rows exceeds the admitted ${parts.batchSize}`,
      );
  }

  /** Gathers the next units' batches (as many as the pace says) and sends them. */
  async function launch(): Promise<{ readonly sent: Promise<Gone[]> }> {
    const from = next;
    const count = pace.next(parts.units - from);
    const steps: LoopStepFeeds[] = [];
    const kinds: ('train' | 'skip' | 'end')[] = [];
    for (let i = 0; i < count; i++) {
      const found =
        gathered === undefined
          ? await batchOf(from + i)
          : await gatherFeeds(from + i, gathered.rows);
      if (found === 'end') {
        kinds.push('end');
        sentEnd = true;
        break;
      }
      if (found === 'skip') {
        kinds.push('skip');
        steps.push(null);
        continue;
      }
      let feeds: Record<string, Tensor>;
      if (gathered === undefined) {
        const batch = found as Batch;
        checkRows(batch.x.dims[0] ?? 0);
        feeds = { [step.inputs.x]: batch.x, [step.inputs.y]: batch.y };
      } else feeds = found;
      // Adam's step count: steps that trained before the loop and in it, this one included.
      sentTraining++;
      if (adamStep !== null) feeds[adamStep] = scalar(sentTraining);
      kinds.push('train');
      steps.push(feeds);
    }
    next = from + kinds.length;
    const sent = (async (): Promise<Gone[]> => {
      const result =
        steps.length === 0 ? { ran: 0, values: {}, ms: 0 } : await opened.run(steps, ctx.signal);
      if (steps.length > 0) pace.record(result.ran, result.ms);
      copies.giveBack(steps, result.steps);
      if (result.transfers !== undefined) {
        uploaded += result.transfers.uploaded;
        readBack += result.transfers.readBack;
        stepsRun += result.ran;
      }
      const losses = result.values[step.outputs.loss];
      const gone: Gone[] = [];
      let through = 0;
      for (const kind of kinds) {
        if (kind === 'end') {
          gone.push('end');
          break;
        }
        // Cancelled part-way: the units not gone through give nothing.
        if (through >= result.ran) break;
        gone.push(kind === 'skip' ? 'skip' : (losses?.[through] ?? Number.NaN));
        through++;
      }
      if (gone.length === 0 && !ctx.signal.aborted)
        throw programError('step-failed', `${name}: the model ran none of unit ${from}'s steps`);
      return gone;
    })();
    // Awaited by the unit that needs it, or by dispose; never an unhandled rejection meanwhile.
    sent.catch(() => undefined);
    // Wrapped: an async function's promise would flatten into the message's own.
    return { sent };
  }

  /** Sends messages until `ahead` are on their way, while units are left to send. */
  async function topUp(): Promise<void> {
    while (inFlight.length < ahead && !sentEnd && next < parts.units && !ctx.signal.aborted)
      inFlight.push((await launch()).sent);
  }

  /** Lets the model finish (or stop at) the messages it works on. */
  async function settle(): Promise<void> {
    const pending = inFlight.splice(0);
    for (const message of pending) await message.catch(() => undefined);
  }

  return {
    done: () => ended,
    async unit() {
      if (closed) throw programError('invalid-program', `${name}: unit after dispose`);
      // Units come in order, one at a time: the next one's result is in `waiting` or on its way.
      if (head >= waiting.length) {
        if (inFlight.length === 0) inFlight.push((await launch()).sent);
        // Where the model runs elsewhere, the next message's batches are gathered while it works.
        await topUp();
        waiting = await inFlight.shift()!;
        head = 0;
        // The next message goes now, so the model works while the runner takes these units.
        await topUp();
      }
      const gone = waiting[head++];
      if (gone === undefined || gone === 'skip') return;
      if (gone === 'end') {
        ended = true;
        return;
      }
      trained++;
      ctx.emit(parts.lossMetric, gone);
    },
    async end() {
      await settle();
      const stateOutput = parts.stateOutput;
      // The optimizer state comes back in the same call as the weights, when it is asked for.
      const read = stateOutput === undefined ? weightSlots : step.carried;
      const values = await opened.carried(read.map((c) => c.input));
      for (const c of read) {
        const t = values[c.input];
        if (t === undefined) continue;
        if (c.role === 'weight') ctx.output(`${parts.weightsOutput}.${c.weight}`, t);
        else if (stateOutput !== undefined) ctx.output(stateTensorOutput(stateOutput, c.input), t);
      }
      if (stateOutput !== undefined)
        ctx.output(stateStepsOutput(stateOutput), (parts.stepsBefore ?? 0) + trained);
      // Every unit after the first was fed the carried tensors where the model runs.
      ctx.output(parts.fedOutputs.device, Math.max(0, trained - 1));
      // On a device loop (WebGPU) they were in GPU buffers.
      ctx.output(parts.fedOutputs.gpu, opened.opened !== undefined ? Math.max(0, trained - 1) : 0);
      const counted = parts.transferOutputs;
      if (counted !== undefined && opened.opened !== undefined && stepsRun > 0) {
        ctx.output(counted.uploadedPerStep, uploaded / stepsRun);
        ctx.output(counted.readBackPerStep, readBack / stepsRun);
        ctx.output(counted.uploadedOnce, opened.opened.uploaded);
        ctx.output(counted.residentRows, opened.resident === true ? 1 : 0);
      } else if (counted !== undefined && opened.resident === true && trained > 0)
        // A loop beside the engine that read the dataset in place: no bytes crossed to count.
        ctx.output(counted.residentRows, 1);
      parts.onPace?.(pace.summary());
      const capture = opened.graphCapture?.() ?? null;
      if (capture !== null) parts.onGraphCapture?.(capture);
    },
    async dispose() {
      if (closed) return;
      closed = true;
      await settle();
      await opened.close();
    },
  };
}

/** The plan of `parts`' loop: carried pairs, the loss read back every step. */
export function aheadPlan(parts: AheadLoopParts): StepLoopPlan {
  return {
    carried: parts.step.carried.map((c) => ({ input: c.input, output: c.output })),
    initial: parts.initial,
    constants: parts.constants,
    read: [parts.step.outputs.loss],
    ...(parts.resident &&
      parts.step.inputs.resident && {
        resident: {
          [parts.step.inputs.resident.x]: parts.resident.x,
          [parts.step.inputs.resident.y]: parts.resident.y,
        },
      }),
  };
}
