/**
 * A WebGPU train step run captured: onnxruntime-web records the step's GPU
 * commands once (`enableGraphCapture`) and replays them every step over
 * the buffers it was bound to the first time (device-loop.ts drives it).
 *
 * Idea: every input and output of the captured session is a buffer that
 * stays put for the loop — the weights, the optimizer state, the constants,
 * the dataset, one buffer per per-step feed, one per output. A step writes
 * its own feeds into theirs (`writeBuffer`: the only bytes that go up),
 * replays, then copies each carried output into its carried input and the
 * read outputs' first values into a slot buffer, in one command buffer, all
 * on the GPU; the slots are read back in one download per call.
 *
 * Why the buffers are onnxruntime's own (copies made by a one-op session,
 * `ownedCopies`) and not ours: onnxruntime-web 1.30 registers a buffer the
 * page made (`Tensor.fromGpuBuffer`) for each run and lets go of its handle
 * after it, and the next run hands the freed handles out again in another
 * order — the replay then binds the inputs swapped (measured on SwiftShader:
 * every other replay of `(a + b) · b` computed `(a + b) · a`, and a train
 * step failed to make its bind groups). A buffer onnxruntime made as an
 * output keeps its handle for good, so replays bind what the capture bound.
 * Trade-off: each fixed tensor is copied once on the GPU when the capture
 * starts (for a moment the dataset is there twice).
 */
import type * as Ort from 'onnxruntime-web';
import type { CapturedStep, CaptureOpened } from '../../src/core/runtime/device-loop';
import type { DeviceTensor, StepLoopPlan, Tensor } from '../../src/core/runtime/tensor-runtime';
import type { OrtModule } from './ort-loader';
import type { TransferLedger } from '../../src/core/runtime/transfers';
import { GraphBuilder } from '../../src/core/onnx/graph';
import { elementCount } from '../../src/core/onnx/mlp-spec';
import { OrtDeviceTensor } from './device-tensors';

/** A one-op graph (`out` = `in`, any shape) whose output lands in a buffer onnxruntime owns. */
export function copyGraph(type: Tensor['type']): Uint8Array {
  const g = new GraphBuilder(`flowbench_owned_copy_${type}`);
  g.output(g.op('Identity', [g.input('in', type)]), 'out', type);
  return g.toModel();
}

/** A mappable buffer, as the slot buffer is. */
interface SlotBuffer {
  mapAsync(mode: number, offset?: number, size?: number): Promise<void>;
  getMappedRange(offset?: number, size?: number): ArrayBuffer;
  unmap(): void;
  destroy(): void;
}

/** What a captured step needs of a `GPUDevice`. */
export interface CaptureDevice {
  createBuffer(descriptor: { size: number; usage: number }): SlotBuffer;
  createCommandEncoder(): {
    copyBufferToBuffer(
      source: unknown,
      sourceOffset: number,
      destination: unknown,
      destinationOffset: number,
      size: number,
    ): void;
    finish(): unknown;
  };
  readonly queue: {
    writeBuffer(buffer: unknown, offset: number, data: Float32Array | Int32Array): void;
    submit(commands: unknown[]): void;
  };
}

/** `GPUBufferUsage` MAP_READ | COPY_DST; `GPUMapMode.READ`. */
const SLOT_USAGE = 0x01 | 0x08;
const MAP_READ = 1;
/** Steps whose read values the slot buffer holds before they are brought back. */
const SLOT_STEPS = 1024;

const bytesOf = (t: OrtDeviceTensor): number =>
  elementCount(t.dims) * Float32Array.BYTES_PER_ELEMENT;
const bufferOf = (t: OrtDeviceTensor): unknown => t.tensor.gpuBuffer;

/** The parts a captured step is made of; see `OrtCapturedStep`. */
export interface CapturedParts {
  readonly session: Ort.InferenceSession;
  readonly device: CaptureDevice;
  /** Every input of the session, in buffers onnxruntime owns. */
  readonly inputs: Readonly<Record<string, OrtDeviceTensor>>;
  /** Those of `inputs` the step made itself (its per-step feeds): released with it. */
  readonly own: readonly OrtDeviceTensor[];
  /** Every output of the session, in buffers onnxruntime owns (released with the step). */
  readonly outputs: Readonly<Record<string, OrtDeviceTensor>>;
  readonly carried: readonly { readonly input: string; readonly output: string }[];
  readonly read: readonly string[];
  /** Rejects when the device is lost. */
  readonly loss: Promise<never> | null;
}

/** A captured train step over fixed buffers; see the module comment. */
export class OrtCapturedStep implements CapturedStep {
  private readonly feeds: Record<string, Ort.Tensor>;
  private readonly fetches: Record<string, Ort.Tensor>;
  private readonly slots: SlotBuffer;
  /** Steps whose read values wait in the slot buffer; values already brought back. */
  private waiting = 0;
  private taken: number[][];

  constructor(private readonly parts: CapturedParts) {
    const fed = (record: Readonly<Record<string, OrtDeviceTensor>>) =>
      Object.fromEntries(Object.entries(record).map(([name, t]) => [name, t.fed()]));
    this.feeds = fed(parts.inputs);
    this.fetches = fed(parts.outputs);
    this.slots = parts.device.createBuffer({
      size: Math.max(16, SLOT_STEPS * parts.read.length * 4),
      usage: SLOT_USAGE,
    });
    this.taken = parts.read.map(() => []);
  }

  async step(feeds: Readonly<Record<string, Tensor>>, ledger: TransferLedger): Promise<void> {
    const { device, inputs, outputs, loss } = this.parts;
    if (this.waiting === SLOT_STEPS) await this.bringBack(ledger);
    for (const name in feeds) {
      const into = inputs[name];
      if (into === undefined) throw new Error(`the captured step has no buffer for ${name}`);
      const { data } = feeds[name]!;
      device.queue.writeBuffer(bufferOf(into), 0, data);
      ledger.upload(data.byteLength);
    }
    const ran = this.parts.session.run(this.feeds, this.fetches);
    await (loss ? Promise.race([ran, loss]) : ran);
    const encoder = device.createCommandEncoder();
    for (const { input, output } of this.parts.carried) {
      const from = outputs[output];
      const to = inputs[input];
      if (from === undefined || to === undefined)
        throw new Error(`the captured step carries no ${output} into ${input}`);
      encoder.copyBufferToBuffer(bufferOf(from), 0, bufferOf(to), 0, bytesOf(to));
    }
    const reads = this.parts.read.length;
    this.parts.read.forEach((name, i) => {
      const from = outputs[name];
      if (from === undefined) throw new Error(`the captured step has no output ${name}`);
      encoder.copyBufferToBuffer(bufferOf(from), 0, this.slots, (this.waiting * reads + i) * 4, 4);
    });
    device.queue.submit([encoder.finish()]);
    this.waiting++;
  }

  /** Brings the slots' values back into `taken`, in one download. */
  private async bringBack(ledger: TransferLedger): Promise<void> {
    const reads = this.parts.read.length;
    const bytes = this.waiting * reads * 4;
    if (bytes === 0) return;
    const mapped = this.slots.mapAsync(MAP_READ, 0, bytes);
    await (this.parts.loss ? Promise.race([mapped, this.parts.loss]) : mapped);
    const values = new Float32Array(this.slots.getMappedRange(0, bytes).slice(0));
    this.slots.unmap();
    ledger.download(bytes);
    for (let k = 0; k < this.waiting; k++)
      for (let i = 0; i < reads; i++) this.taken[i]!.push(values[k * reads + i]!);
    this.waiting = 0;
  }

  async takeReads(ledger: TransferLedger): Promise<Float32Array[]> {
    await this.bringBack(ledger);
    const out = this.taken.map((values) => Float32Array.from(values));
    this.taken = this.parts.read.map(() => []);
    return out;
  }

  async release(): Promise<void> {
    this.slots.destroy();
    try {
      const released = this.parts.session.release();
      // A session of a lost device is let go without waiting on the dead GPU.
      await (this.parts.loss ? Promise.race([released, this.parts.loss]) : released);
    } finally {
      for (const t of [...this.parts.own, ...Object.values(this.parts.outputs)]) t.dispose();
    }
  }
}

/** What opening a captured step needs of the runtime. */
export interface CaptureDeps {
  readonly ort: OrtModule;
  /** The train step's model bytes. */
  readonly model: Uint8Array;
  /** Rejects when the device is lost. */
  readonly loss: Promise<never> | null;
  /** Copies of feeds in buffers onnxruntime owns: on the GPU, or uploaded from the CPU (counted). */
  ownedCopies(
    feeds: Readonly<Record<string, Tensor | DeviceTensor>>,
    transfers: TransferLedger,
  ): Promise<Record<string, OrtDeviceTensor>>;
}

/**
 * The train step opened captured over copies of `inputs` (the loop's fixed
 * and carried tensors), with buffers of its own for `first`'s feeds and for
 * every output; throws, naming why, where onnxruntime refuses, leaving
 * `inputs` as they were.
 */
export async function openCapturedStep(
  deps: CaptureDeps,
  inputs: Readonly<Record<string, DeviceTensor>>,
  first: Readonly<Record<string, Tensor>>,
  plan: Pick<StepLoopPlan, 'carried' | 'read'>,
  transfers: TransferLedger,
): Promise<CaptureOpened> {
  const session = await deps.ort.InferenceSession.create(deps.model, {
    executionProviders: ['webgpu'],
    enableGraphCapture: true,
    preferredOutputLocation: 'gpu-buffer',
  });
  const made: OrtDeviceTensor[] = [];
  try {
    // The loop's tensors, copied on the GPU into buffers onnxruntime owns (the module comment says why).
    const fixed = await deps.ownedCopies(inputs, transfers);
    made.push(...Object.values(fixed));
    const perStep = await deps.ownedCopies(first, transfers);
    made.push(...Object.values(perStep));
    const all = { ...fixed, ...perStep };
    for (const name of session.inputNames)
      if (all[name] === undefined) throw new Error(`input ${name} is fed nothing`);
    // Each output's buffer: a carried output's is shaped as its input; any other needs a fixed shape.
    const carriedFrom = new Map(plan.carried.map((c) => [c.output, c.input]));
    const outputs: Record<string, OrtDeviceTensor> = {};
    for (const meta of session.outputMetadata) {
      const input = carriedFrom.get(meta.name);
      let shaped: Tensor | DeviceTensor;
      if (input !== undefined) shaped = all[input]!;
      else {
        if (!meta.isTensor || (meta.type !== 'float32' && meta.type !== 'int32'))
          throw new Error(`output ${meta.name} is not a float32 or int32 tensor`);
        const dims = meta.shape.map((d) => (typeof d === 'number' ? d : Number.NaN));
        if (dims.some((d) => !Number.isInteger(d) || d < 0))
          throw new Error(`output ${meta.name} has no fixed shape [${meta.shape.join(', ')}]`);
        const size = elementCount(dims);
        shaped = {
          type: meta.type,
          data: meta.type === 'int32' ? new Int32Array(size) : new Float32Array(size),
          dims,
        };
      }
      const copy = (await deps.ownedCopies({ [meta.name]: shaped }, transfers))[meta.name]!;
      made.push(copy);
      outputs[meta.name] = copy;
    }
    const step = new OrtCapturedStep({
      session,
      device: (await deps.ort.env.webgpu.device) as CaptureDevice,
      inputs: all,
      own: Object.values(perStep),
      outputs,
      carried: plan.carried,
      read: plan.read,
      loss: deps.loss,
    });
    return { step, inputs: fixed };
  } catch (error) {
    for (const t of made) t.dispose();
    await session.release().catch(() => undefined);
    throw error;
  }
}
