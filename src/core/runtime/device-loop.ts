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
}

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

  async function run(
    steps: readonly LoopStepFeeds[],
    signal: AbortSignal,
  ): Promise<StepLoopResult> {
    if (closed) throw new Error('a device loop ran after close()');
    const before = ledger.counts;
    const start = now();
    const reads: DeviceTensor[][] = plan.read.map(() => []);
    const ranAt: number[] = [];
    let ran = 0;
    try {
      for (const step of steps) {
        if (signal.aborted) break;
        if (step === null) {
          ran++;
          continue;
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
        ran++;
      }
      const values: Record<string, Float32Array> = {};
      for (const [i, name] of plan.read.entries()) {
        const series = new Float32Array(ran).fill(Number.NaN);
        const kept = reads[i]!;
        if (kept.length > 0) {
          // One download for the call's values of this output.
          const read = await ops.readFirst(kept, ledger);
          ranAt.forEach((at, k) => (series[at] = read[k] ?? Number.NaN));
        }
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
      for (const t of Object.values(fixed)) t.dispose();
      for (const t of Object.values(carried)) t.dispose();
      await ops.release();
    },
  };
}
