/**
 * Training on WebGPU with the dataset kept on the device, through the
 * runtime seam: onnxruntime-web's WASM backend computes, behind a module
 * that keeps the outputs it is asked to in stand-in "GPU buffers" and
 * counts, on its own side, every byte a CPU feed or a buffer write brings
 * in and every byte a download takes out — so the runtime's own ledger is checked against the
 * device's count, not against itself.
 */
import * as ort from 'onnxruntime-web';
import { describe, expect, it } from 'vitest';
import type { TrainedModel } from '../../src/core/catalog/values';
import type { AdapterInfo } from '../../src/core/runtime/tensor-runtime';
import { OrtRuntime } from './ort-runtime';
import { engineInfo } from './adapter';
import { type OrtModule } from './ort-loader';
import { loadFlow, runOnRuntime, runOnWasm, type WasmRun } from './testing';

const adapter: AdapterInfo = { vendor: 'test', architecture: 'gpu', isFallbackAdapter: false };
const example = loadFlow('src/examples/spirals-mlp.flow.json');
const STEPS = 40;
/** The example's batch: 64 rows of 2 features and 2 one-hot classes, float32. */
const BATCH_BYTES = 64 * (2 + 2) * 4;

const bytesOf = (data: unknown) => (ArrayBuffer.isView(data) ? data.byteLength : 0);

/** A tensor held "on the device": its data comes back only through `getData` (a counted download). */
class StandInGpuTensor {
  readonly location = 'gpu-buffer';
  readonly type: ort.Tensor['type'];
  readonly dims: readonly number[];
  constructor(
    readonly held: ort.Tensor,
    private readonly device: { readBack: number },
  ) {
    this.type = held.type;
    this.dims = held.dims;
  }
  getData(): Promise<ort.Tensor['data']> {
    this.device.readBack += bytesOf(this.held.data);
    return Promise.resolve(this.held.data);
  }
  get data(): never {
    throw new Error('the data of a GPU tensor is read with getData()');
  }
  dispose(): void {}
}

/** An ORT module on a stand-in WebGPU device that counts what crosses to and from it. */
function standInGpu() {
  const device = { uploaded: 0, readBack: 0, runs: 0 };
  type Location = 'gpu-buffer' | Record<string, string> | undefined;
  /** A stand-in GPU buffer: what was written to it. */
  type Buffer = { data: Float32Array | Int32Array | null; destroy(): void };
  const gpu = {
    lost: new Promise(() => undefined),
    createBuffer: (): Buffer => ({ data: null, destroy: () => undefined }),
    queue: {
      writeBuffer(buffer: Buffer, _offset: number, data: Float32Array | Int32Array) {
        device.uploaded += data.byteLength;
        buffer.data = data.slice();
      },
    },
  };
  /** onnxruntime's tensors, and tensors over stand-in GPU buffers. */
  const Tensor = Object.assign(
    function (...args: ConstructorParameters<typeof ort.Tensor>) {
      return new ort.Tensor(...args);
    },
    {
      fromGpuBuffer(
        buffer: unknown,
        options: { dataType: 'float32' | 'int32'; dims: readonly number[] },
      ) {
        const { data } = buffer as Buffer;
        return new StandInGpuTensor(new ort.Tensor(options.dataType, data!, options.dims), device);
      },
    },
  );
  const module = {
    ...ort,
    Tensor,
    env: { ...ort.env, webgpu: { device: Promise.resolve(gpu) } },
    InferenceSession: {
      async create(
        model: Uint8Array,
        options: { preferredOutputLocation?: Location; enableGraphCapture?: boolean },
      ) {
        if (options.enableGraphCapture === true)
          throw new Error('the stand-in GPU cannot replay a captured step');
        const session = await ort.InferenceSession.create(model, { executionProviders: ['wasm'] });
        const where = options.preferredOutputLocation;
        const onGpu = (name: string) =>
          where === 'gpu-buffer' || (typeof where === 'object' && where[name] === 'gpu-buffer');
        return {
          inputNames: session.inputNames,
          outputNames: session.outputNames,
          async run(feeds: Record<string, ort.Tensor | StandInGpuTensor>) {
            device.runs++;
            const cpu: Record<string, ort.Tensor> = {};
            for (const [name, feed] of Object.entries(feeds)) {
              if (feed instanceof StandInGpuTensor) cpu[name] = feed.held;
              else {
                device.uploaded += bytesOf(feed.data);
                cpu[name] = feed;
              }
            }
            const out = await session.run(cpu);
            const results: Record<string, unknown> = {};
            for (const [name, tensor] of Object.entries(out)) {
              if (onGpu(name)) results[name] = new StandInGpuTensor(tensor, device);
              else {
                device.readBack += bytesOf(tensor.data);
                results[name] = tensor;
              }
            }
            return results;
          },
          release: () => session.release(),
        };
      },
    },
  } as unknown as OrtModule;
  return { module, device };
}

/**
 * Trains the example on the stand-in GPU; the stand-in cannot replay a
 * captured step (it has no command encoder), so graph capture is off unless asked for.
 */
async function trainOnGpu(residentDatasetBytes?: number, graphCapture = false) {
  const { module, device } = standInGpu();
  const runtime = new OrtRuntime(
    engineInfo(adapter),
    () => Promise.resolve(module),
    'webgpu',
    undefined,
    {
      deviceLoops: true,
      graphCapture,
      ...(residentDatasetBytes !== undefined && { residentDatasetBytes }),
    },
  );
  const run = await runOnRuntime(example, [], runtime, { steps: STEPS, lr: 0.1, seed: 3 });
  await runtime.releaseAll();
  return { run, device, ledger: runtime.transfers.counts };
}

const losses = (run: WasmRun) =>
  run.emitted.filter((e) => e.node === 'train' && e.port === 'loss').map((e) => e.value as number);
const trainLog = (run: WasmRun, pattern: RegExp) =>
  run.logs.find((l) => l.node === 'train' && pattern.test(l.message))?.message ?? '';

/** "12 B", "1.5 KiB" → bytes. */
function parseBytes(text: string): number {
  const [, n, unit] = /([\d.]+) (B|KiB|MiB)/.exec(text) ?? [];
  return Number(n) * (unit === 'MiB' ? 1024 ** 2 : unit === 'KiB' ? 1024 : 1);
}

describe('training on WebGPU with the dataset on the device', () => {
  it('counts every byte the device saw, and sends less than the batch per step', async () => {
    const { run, device, ledger } = await trainOnGpu();
    expect(run.errors).toEqual({});
    // The runtime's ledger agrees with the device's own count, both ways.
    expect(ledger).toEqual({ uploaded: device.uploaded, readBack: device.readBack });
    const line = trainLog(run, /^bytes per step/);
    expect(line).toContain('the dataset stayed on the GPU');
    const [, up, down] = /bytes per step: (\S+ \S+) to the GPU, (\S+ \S+) back/.exec(line) ?? [];
    // Each step sends its 64 row indices (int32), and reads back its loss (one float32).
    expect(parseBytes(up!)).toBe(64 * 4);
    expect(parseBytes(up!) + parseBytes(down!)).toBeLessThanOrEqual(BATCH_BYTES);
    expect(parseBytes(down!)).toBeLessThan(8);
  });

  it('runs uncaptured where the step cannot be captured, says why once, and still counts every byte', async () => {
    const plain = await trainOnGpu();
    const { run, device, ledger } = await trainOnGpu(undefined, true);
    expect(run.errors).toEqual({});
    expect(ledger).toEqual({ uploaded: device.uploaded, readBack: device.readBack });
    const refusals = run.logs.filter((l) => l.node === 'train' && /^graph capture/.test(l.message));
    expect(refusals.map((l) => l.message)).toEqual([
      'graph capture refused: onnxruntime would not capture the train step: ' +
        'the stand-in GPU cannot replay a captured step; the steps ran uncaptured',
    ]);
    expect(losses(run)).toEqual(losses(plain.run));
  });

  it('trains to the same losses and optimizer state as WASM, the dataset on the device or not', async () => {
    const wasmRun = await runOnWasm(example, [], { steps: STEPS, lr: 0.1, seed: 3 });
    const wasm = losses(wasmRun);
    const resident = await trainOnGpu();
    const uploaded = await trainOnGpu(0);
    expect(trainLog(uploaded.run, /^bytes per step/)).toContain('each step sent its batch');
    expect(wasm).toHaveLength(STEPS / 5);
    for (const gpu of [losses(resident.run), losses(uploaded.run)]) {
      expect(gpu).toHaveLength(wasm.length);
      gpu.forEach((value, i) => expect(value).toBeCloseTo(wasm[i]!, 5));
    }
    // The momentum state comes back from the device with the weights, as WASM trained it.
    const stateOf = (run: WasmRun) =>
      (run.emitted.find((e) => e.node === 'train' && e.port === 'model')?.value as TrainedModel)
        .optimizerState!;
    const wasmState = stateOf(wasmRun);
    for (const gpu of [stateOf(resident.run), stateOf(uploaded.run)]) {
      expect(gpu.optimizer).toBe('momentum');
      expect(gpu.steps).toBe(STEPS);
      expect(Object.keys(gpu.tensors).sort()).toEqual(Object.keys(wasmState.tensors).sort());
      for (const [input, values] of Object.entries(gpu.tensors))
        values.forEach((v, i) => expect(v).toBeCloseTo(wasmState.tensors[input]![i]!, 4));
    }
    // Without the dataset on the device, each step sends its batch (and its rows).
    const [, up] =
      /bytes per step: (\S+ \S+) to the GPU/.exec(trainLog(uploaded.run, /^bytes per step/)) ?? [];
    expect(parseBytes(up!)).toBeGreaterThanOrEqual(BATCH_BYTES);
  });
});
