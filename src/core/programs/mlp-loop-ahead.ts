/**
 * An MLP train loop whose steps run where its session lives, many per call
 * (`ModelSession.openLoop`: onnxruntime in a model worker with threads of
 * its own), while the runner still sees one unit per step.
 *
 * Idea: when the runner asks for a unit and none is waiting, the body
 * gathers the batches of the next units (as many as `LoopPace` says fill a
 * message), copies them (the batch source rewrites its buffers), and sends
 * them in one call; the carried weights and optimizer state never leave the
 * model's side. The losses come back together and each unit emits its own,
 * so the metric series, the progress and a cancel between units read as
 * before. Trade-off: it asks for batches ahead of the units that train on
 * them, so only a loop whose `batch(i)` depends on nothing but `i` may take
 * this path (`MlpTrainLoopOptions.batchesAhead`); a live source trains one
 * step a call.
 */
import type { LoopBody, StepContext } from './program.ts';
import type { LoopStepFeeds, StepLoop, StepLoopPlan, Tensor } from '../runtime/tensor-runtime.ts';
import type { TrainStep } from '../onnx/mlp.ts';
import { programError } from './errors.ts';
import { LoopPace, type LoopPaceSummary } from './loop-pace.ts';

/** What a train loop's unit trains on; see `MlpTrainLoopOptions.batch` (mlp-steps.ts). */
export type MlpBatch = { readonly x: Tensor; readonly y: Tensor } | 'skip' | 'end';

/** What the loop's body needs of the train loop it stands in for. */
export interface AheadLoopParts {
  readonly name: string;
  readonly step: TrainStep;
  readonly units: number;
  readonly batchSize: number;
  readonly batch: (index: number) => MlpBatch | Promise<MlpBatch>;
  /** Feeds the same every step (learning rate, optimizer coefficients). */
  readonly constants: Record<string, Tensor>;
  /** Every carried input's first value. */
  readonly initial: Record<string, Tensor>;
  readonly lossMetric: string;
  /** Where the trained weights go, as `<prefix>.<weight>`. */
  readonly weightsOutput: string;
  /** Outputs the loop writes beside the weights: device-fed and GPU-fed units. */
  readonly fedOutputs: { readonly device: string; readonly gpu: string };
  /** Told once the loop has ended, with how its messages went. */
  readonly onPace?: (summary: LoopPaceSummary) => void;
}

/** What a unit found when its message came back. */
type Gone = number | 'skip' | 'end';

const scalar = (v: number): Tensor => ({ type: 'float32', data: Float32Array.of(v), dims: [] });
const copyOf = (t: Tensor): Tensor => ({ type: t.type, data: t.data.slice(), dims: [...t.dims] });

/** The body of `parts`' loop over `opened`; see the module comment. */
export function aheadLoopBody(
  parts: AheadLoopParts,
  ctx: StepContext,
  opened: StepLoop,
  pace = new LoopPace(),
): LoopBody {
  const { step, name } = parts;
  const adamStep = step.inputs.adam?.step ?? null;
  const weightSlots = step.carried.filter((c) => c.role === 'weight');
  /** Results of units sent and not yet taken by the runner, from `head` on. */
  let waiting: Gone[] = [];
  let head = 0;
  let trained = 0;
  let ended = false;
  let closed = false;

  /** Sends the units from `index` on, as many as the pace says; queues what came back. */
  async function send(index: number): Promise<void> {
    const count = pace.next(parts.units - index);
    const steps: LoopStepFeeds[] = [];
    const kinds: ('train' | 'skip' | 'end')[] = [];
    for (let i = 0; i < count; i++) {
      const batch = await parts.batch(index + i);
      if (batch === 'end') {
        kinds.push('end');
        break;
      }
      if (batch === 'skip') {
        kinds.push('skip');
        steps.push(null);
        continue;
      }
      if ((batch.x.dims[0] ?? 0) > parts.batchSize)
        throw programError(
          'invalid-program',
          `${name}: batch of ${batch.x.dims[0]} rows exceeds the admitted ${parts.batchSize}`,
        );
      const feeds: Record<string, Tensor> = {
        [step.inputs.x]: copyOf(batch.x),
        [step.inputs.y]: copyOf(batch.y),
      };
      // Adam's step count: units that trained, this one included.
      if (adamStep !== null) feeds[adamStep] = scalar(trained + steps.length + 1);
      kinds.push('train');
      steps.push(feeds);
    }
    const result =
      steps.length === 0 ? { ran: 0, values: {}, ms: 0 } : await opened.run(steps, ctx.signal);
    if (steps.length > 0) pace.record(result.ran, result.ms);
    const losses = result.values[step.outputs.loss];
    waiting = [];
    head = 0;
    let through = 0;
    for (const kind of kinds) {
      if (kind === 'end') {
        waiting.push('end');
        break;
      }
      // Cancelled part-way: the units not gone through give nothing.
      if (through >= result.ran) break;
      const value = losses?.[through] ?? Number.NaN;
      through++;
      if (kind === 'skip') waiting.push('skip');
      else {
        trained++;
        waiting.push(value);
      }
    }
    if (waiting.length === 0 && !ctx.signal.aborted)
      throw programError('step-failed', `${name}: the model ran none of unit ${index}'s steps`);
  }

  return {
    done: () => ended,
    async unit(index) {
      if (closed) throw programError('invalid-program', `${name}: unit after dispose`);
      if (head >= waiting.length) await send(index);
      const gone = waiting[head++];
      if (gone === undefined || gone === 'skip') return;
      if (gone === 'end') {
        ended = true;
        return;
      }
      ctx.emit(parts.lossMetric, gone);
    },
    async end() {
      const inputs = weightSlots.map((c) => c.input);
      const values = await opened.carried(inputs);
      for (const c of weightSlots) {
        const t = values[c.input];
        if (t !== undefined) ctx.output(`${parts.weightsOutput}.${c.weight}`, t);
      }
      // Every unit after the first was fed the carried tensors where the model runs.
      ctx.output(parts.fedOutputs.device, Math.max(0, trained - 1));
      ctx.output(parts.fedOutputs.gpu, 0);
      parts.onPace?.(pace.summary());
    },
    async dispose() {
      if (closed) return;
      closed = true;
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
  };
}
