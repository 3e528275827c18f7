/**
 * A loop of train steps kept on the device (WebGPU): what crosses the bus
 * per step is the step's own feeds — its batch's row indices where the
 * dataset is resident — and the metrics, read back once per call.
 *
 * Idea: opening the loop uploads, once, the carried tensors' first values
 * (weights, optimizer state), the constants (hyperparameters) and, where
 * they fit on the device, the plan's resident inputs (the whole dataset).
 * Each step is fed device tensors for all of those and a CPU tensor only
 * for what changes per step; its carried outputs stay on the device for the
 * next step, and each step's `read` outputs (the loss) stay there too, until
 * the call's steps are done: then they are read back together, in one
 * download (`DeviceOps.readFirst`), so the metric series keeps every step's
 * value while the bus sees one read per call. Every byte goes through the
 * loop's own ledger, so the loop reports its bytes per step whatever else
 * runs on the device. Trade-off: a call's metrics arrive when its last step
 * is done (the program loop paces calls at ~75 ms of work, so they still
 * stream several times a second).
 *
 * Graph capture: where the runtime offers it (`DeviceOps.capture`, WebGPU),
 * the loop's first step moves every fixed and carried tensor into buffers
 * the library owns (copies on the GPU) and opens the step captured: each
 * step writes its own feeds into fixed buffers, replays the recording, and
 * has its carried outputs copied into the carried inputs on the GPU; the
 * read outputs' first values are copied aside and read back once per call,
 * as before. Whatever the capture refuses — the session, a run, a step whose
 * shapes changed (graph-capture.ts) — the loop goes on uncaptured from the
 * carried tensors as the last good step left them, and reports why once
 * (`StepLoop.graphCapture`), never failing the run for it.
 */
import type {
  DeviceTensor,
  Feed,
  Fetched,
  LoopStepFeeds,
  StepLoop,
  StepLoopPlan,
  StepLoopResult,
  Tensor,
} from './tensor-runtime.ts';
import { isDeviceTensor } from './tensor-runtime.ts';
import { TransferLedger, transfersBetween } from './transfers.ts';
import {
  captureRefusal,
  shapeChange,
  stepShapes,
  type GraphCaptureReport,
  type StepShapes,
} from './graph-capture.ts';

/** A train step opened captured (WebGPU graph capture) over fixed buffers. */
export interface CapturedStep {
  /** Writes `feeds` into the step's fixed buffers, replays the step, copies carried outputs into carried inputs. */
  step(feeds: Readonly<Record<string, Tensor>>, ledger: TransferLedger): Promise<void>;
  /** Each read output's first value at every step since the last take, in one download. */
  takeReads(ledger: TransferLedger): Promise<Float32Array[]>;
  /** Lets go of the captured session and the buffers it made (not the inputs it was given). */
  release(): Promise<void>;
}

/** A captured step, and the copies of the loop's tensors it replays over. */
export interface CaptureOpened {
  readonly step: CapturedStep;
  /** Copies of the inputs `open` was given, in the buffers the capture bound: the loop's from now on. */
  readonly inputs: Record<string, DeviceTensor>;
}

/** What graph capture needs of the runtime. */
export interface CaptureOps {
  /**
   * Opens the step captured over copies of `inputs` (every fixed and carried
   * input, copied on the device: no bytes cross) and buffers of its own for
   * `first`'s feeds and every output; throws, naming why, where the library
   * refuses, leaving `inputs` as they were.
   */
  open(
    inputs: Readonly<Record<string, DeviceTensor>>,
    first: Readonly<Record<string, Tensor>>,
    plan: Pick<StepLoopPlan, 'carried' | 'read'>,
    ledger: TransferLedger,
  ): Promise<CaptureOpened>;
}

/** What a device loop needs of the runtime under it; every byte moved is counted in `ledger`. */
export interface DeviceOps {
  /** Runs the train step; outputs named in `keep` stay on the device, the rest come back (counted). */
  run(
    feeds: Readonly<Record<string, Feed>>,
    keep: ReadonlySet<string>,
    ledger: TransferLedger,
  ): Promise<Record<string, Fetched>>;
  /** Copies CPU tensors to the device, once each. */
  upload(
    tensors: Readonly<Record<string, Tensor>>,
    ledger: TransferLedger,
  ): Promise<Record<string, DeviceTensor>>;
  /** The first value of each device tensor, read back together in one download. */
  readFirst(tensors: readonly DeviceTensor[], ledger: TransferLedger): Promise<Float32Array>;
  /** Whether `tensors` may stay on the device for a loop (its budget and buffer limits). */
  fits(tensors: readonly Tensor[]): boolean;
  /** Lets go of what the ops made for this loop (their own sessions). */
  release(): Promise<void>;
  /** Present where the train step may run captured (WebGPU graph capture). */
  readonly capture?: CaptureOps;
}

const messageOf = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).split('\n')[0]!.trim();

const now = (): number => performance.now();

/** Opens `plan`'s loop over `ops`; see the module comment. */
export async function openDeviceLoop(
  ops: DeviceOps,
  plan: StepLoopPlan,
  parent: TransferLedger | null = null,
): Promise<StepLoop> {
  const ledger = new TransferLedger(parent);
  const made: DeviceTensor[] = [];
  const fail = async (error: unknown): Promise<never> => {
    for (const t of made) t.dispose();
    await ops.release();
    throw error;
  };
  const offered = Object.values(plan.resident ?? {});
  const resident = offered.length > 0 && ops.fits(offered);
  let fixed: Record<string, DeviceTensor>;
  let carried: Record<string, DeviceTensor>;
  try {
    fixed = await ops.upload({ ...plan.constants, ...(resident ? plan.resident : {}) }, ledger);
    made.push(...Object.values(fixed));
    carried = await ops.upload(plan.initial, ledger);
    made.push(...Object.values(carried));
  } catch (error) {
    return fail(error);
  }
  const opened = ledger.counts;
  const keep = new Set([...plan.carried.map((c) => c.output), ...plan.read]);
  let closed = false;
  /** The captured step: not tried yet, running, or given up on (then `refused` says why). */
  let captured: CapturedStep | 'untried' | 'off' = ops.capture ? 'untried' : 'off';
  let shapes: StepShapes = new Map();
  let refused: string | undefined;
  let capturedSteps = 0;
  let uncapturedSteps = 0;

  /** Opens the step captured; the loop's tensors are the capture's copies from then on. */
  async function startCapture(capture: CaptureOps, first: Readonly<Record<string, Tensor>>) {
    const started = await capture.open({ ...fixed, ...carried }, first, plan, ledger);
    for (const t of [...Object.values(fixed), ...Object.values(carried)]) t.dispose();
    for (const name of Object.keys(fixed)) fixed[name] = started.inputs[name]!;
    for (const name of Object.keys(carried)) carried[name] = started.inputs[name]!;
    shapes = stepShapes(first);
    return started.step;
  }

  /** Gives up the capture for the rest of the loop; said once, with `why`. */
  async function stopCapture(why: string): Promise<void> {
    refused ??= why;
    const was = captured;
    captured = 'off';
    if (typeof was === 'object') await was.release().catch(() => undefined);
  }

  async function run(
    steps: readonly LoopStepFeeds[],
    signal: AbortSignal,
  ): Promise<StepLoopResult> {
    if (closed) throw new Error('a device loop ran after close()');
    const before = ledger.counts;
    const start = now();
    const reads: DeviceTensor[][] = plan.read.map(() => []);
    const ranAt: number[] = [];
    /** Steps of this call that replayed the captured step, and their read values once taken. */
    let replayedAt: number[] = [];
    const replayed: { at: number; values: number[] }[] = [];
    let ran = 0;
    /** Takes the captured steps' read values so far (before the capture stops, and at the end). */
    const takeReplayed = async (step: CapturedStep) => {
      if (replayedAt.length === 0) return;
      const values = await step.takeReads(ledger);
      replayedAt.forEach((at, k) => replayed.push({ at, values: values.map((v) => v[k]!) }));
      replayedAt = [];
    };
    try {
      for (const step of steps) {
        if (signal.aborted) break;
        if (step === null) {
          ran++;
          continue;
        }
        if (captured === 'untried') {
          const refusal = captureRefusal(step);
          if (refusal !== null) await stopCapture(refusal);
          else
            try {
              captured = await startCapture(ops.capture!, step);
            } catch (error) {
              await stopCapture(
                `onnxruntime would not capture the train step: ${messageOf(error)}`,
              );
            }
        }
        if (typeof captured === 'object') {
          const changed = shapeChange(shapes, step);
          if (changed !== null) {
            await takeReplayed(captured);
            await stopCapture(changed);
          } else {
            try {
              await captured.step(step, ledger);
              replayedAt.push(ran);
              capturedSteps++;
              ran++;
              continue;
            } catch (error) {
              // The carried inputs hold what the last good step left: the step runs again uncaptured.
              await takeReplayed(captured).catch(() => undefined);
              await stopCapture(`a captured step failed: ${messageOf(error)}`);
            }
          }
        }
        const out = await ops.run({ ...fixed, ...carried, ...step }, keep, ledger);
        for (const pair of plan.carried) {
          const next = out[pair.output];
          if (next === undefined || !isDeviceTensor(next))
            throw new Error(`the train step kept no ${pair.output} on the device`);
          carried[pair.input]!.dispose();
          carried[pair.input] = next;
        }
        plan.read.forEach((name, i) => {
          const value = out[name];
          if (value === undefined || !isDeviceTensor(value))
            throw new Error(`the train step kept no ${name} on the device`);
          reads[i]!.push(value);
        });
        ranAt.push(ran);
        uncapturedSteps++;
        ran++;
      }
      if (typeof captured === 'object') await takeReplayed(captured);
      const values: Record<string, Float32Array> = {};
      for (const [i, name] of plan.read.entries()) {
        const series = new Float32Array(ran).fill(Number.NaN);
        const kept = reads[i]!;
        if (kept.length > 0) {
          // One download for the call's values of this output.
          const read = await ops.readFirst(kept, ledger);
          ranAt.forEach((at, k) => (series[at] = read[k] ?? Number.NaN));
        }
        for (const { at, values: v } of replayed) series[at] = v[i] ?? Number.NaN;
        values[name] = series;
      }
      return { ran, values, ms: now() - start, transfers: transfersBetween(before, ledger.counts) };
    } finally {
      for (const kept of reads) for (const t of kept) t.dispose();
    }
  }

  return {
    resident,
    opened,
    run,
    graphCapture: (): GraphCaptureReport | null =>
      ops.capture === undefined
        ? null
        : {
            captured: capturedSteps,
            uncaptured: uncapturedSteps,
            ...(refused !== undefined && { refused }),
          },
    async carried(inputs) {
      const out: Record<string, Tensor> = {};
      for (const input of inputs) {
        const t = carried[input];
        if (t === undefined) throw new Error(`the loop carries no ${input}`);
        out[input] = await t.read();
      }
      return out;
    },
    async close() {
      if (closed) return;
      closed = true;
      if (typeof captured === 'object') await captured.release().catch(() => undefined);
      captured = 'off';
      for (const t of Object.values(fixed)) t.dispose();
      for (const t of Object.values(carried)) t.dispose();
      await ops.release();
    },
  };
}
