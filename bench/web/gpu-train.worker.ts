/**
 * One row of the GPU bench: onnxruntime-web (the WebGPU or the WASM build)
 * runs the shared train loop or the matmul ceiling, and the bytes that
 * cross between CPU and GPU in the timed window are counted.
 *
 * Counting: the WebGPU API's own entry points are wrapped before
 * onnxruntime starts — `GPUQueue.writeBuffer` and buffers created mapped
 * (uploads), `GPUBuffer.mapAsync` for reading (downloads) — so whatever
 * onnxruntime moves (feeds, its own copies for ops it runs on the CPU,
 * uniforms, the loss read back) is counted, not what we think it moves.
 */
import type * as OrtWeb from 'onnxruntime-web';
import { loadBrowserOrt } from '../../workers/engine/ort-loader';
import { mlpTrainMatmuls } from '../lib/flops';
import { benchMlpSpec, benchModel, type TrainModel } from '../lib/train-models';
import { makeBatches, matmulCeiling, trainLoop, type Batch } from '../lib/train-loop';
import { deviceLoopRow } from './gpu-loop';
import type {
  CeilingReport,
  CeilingRequest,
  LoopReport,
  LoopRequest,
  TrainReport,
  TrainRequest,
  WorkerReply,
  WorkerRequest,
} from './gpu-api';

/** Bytes moved since the last reset. */
const moved = { up: 0, down: 0 };

interface Prototypes {
  GPUQueue?: { prototype: { writeBuffer: (...args: unknown[]) => unknown } };
  GPUDevice?: {
    prototype: {
      createBuffer: (descriptor: { size: number; mappedAtCreation?: boolean }) => unknown;
    };
  };
  GPUBuffer?: {
    prototype: {
      mapAsync: (mode: number, offset?: number, size?: number) => unknown;
      size: number;
    };
  };
}

/** Wraps the WebGPU entry points that move bytes; see the module comment. */
function countTransfers(): void {
  const g = globalThis as unknown as Prototypes;
  const queue = g.GPUQueue?.prototype;
  if (queue) {
    const writeBuffer = queue.writeBuffer;
    queue.writeBuffer = function (this: unknown, ...args: unknown[]) {
      const [, , data, dataOffset = 0, size] = args as [
        unknown,
        number,
        ArrayBufferView | ArrayBuffer,
        number?,
        number?,
      ];
      // A typed array's offset and size are in elements, an ArrayBuffer's in bytes.
      const unit = ArrayBuffer.isView(data)
        ? ((data as unknown as { BYTES_PER_ELEMENT?: number }).BYTES_PER_ELEMENT ?? 1)
        : 1;
      moved.up += size !== undefined ? size * unit : data.byteLength - dataOffset * unit;
      return writeBuffer.apply(this, args);
    };
  }
  const device = g.GPUDevice?.prototype;
  if (device) {
    const createBuffer = device.createBuffer;
    device.createBuffer = function (this: unknown, descriptor) {
      if (descriptor.mappedAtCreation) moved.up += descriptor.size;
      return createBuffer.call(this, descriptor);
    };
  }
  const buffer = g.GPUBuffer?.prototype;
  if (buffer) {
    const mapAsync = buffer.mapAsync;
    buffer.mapAsync = function (this: { size: number }, mode, offset = 0, size) {
      // GPUMapMode.READ is 1.
      if (mode & 1) moved.down += size ?? this.size - offset;
      return mapAsync.call(this, mode, offset, size);
    };
  }
}

/** Batches on the device, uploaded once: each step feeds one that is already there. */
function residentPlacer(ort: typeof OrtWeb, model: TrainModel) {
  return async (batch: Batch) => {
    const device = (await ort.env.webgpu.device) as {
      createBuffer(d: { size: number; usage: number }): unknown;
      queue: { writeBuffer(buffer: unknown, offset: number, data: Float32Array): void };
    };
    // GPUBufferUsage: STORAGE 0x80 | COPY_SRC 0x04 | COPY_DST 0x08.
    const upload = (data: Float32Array, dims: readonly number[]) => {
      const buffer = device.createBuffer({ size: data.byteLength, usage: 0x80 | 0x04 | 0x08 });
      device.queue.writeBuffer(buffer, 0, data);
      return ort.Tensor.fromGpuBuffer(buffer as OrtWeb.Tensor.GpuBufferType, {
        dataType: 'float32',
        dims,
      });
    };
    return {
      x: upload(batch.x, model.xDims),
      y: upload(batch.y, model.yDims),
    };
  };
}

async function train(request: TrainRequest): Promise<TrainReport> {
  if (request.backend === 'webgpu') countTransfers();
  const ort = await loadBrowserOrt(request.backend, request.threads);
  const model = benchModel(request.model);
  const result = await trainLoop({
    ort,
    // Errors only: onnxruntime warns on every WebGPU session that shape ops run on the CPU.
    sessionOptions: { executionProviders: [request.backend], logSeverityLevel: 3 },
    model,
    batches: makeBatches(model, 8),
    deviceOutputs: request.backend === 'webgpu',
    ...(request.batches === 'resident' && { place: residentPlacer(ort, model) }),
    warmSteps: request.warmSteps,
    minSteps: request.minSteps,
    seconds: request.seconds,
    readEvery: request.readEvery,
    onTimedStart: () => {
      moved.up = 0;
      moved.down = 0;
    },
  });
  return { ...result, uploadBytes: moved.up, downloadBytes: moved.down };
}

function loop(request: LoopRequest): Promise<LoopReport> {
  countTransfers();
  return deviceLoopRow(request, moved);
}

async function ceiling(request: CeilingRequest): Promise<CeilingReport> {
  const ort = await loadBrowserOrt('wasm', request.threads);
  return matmulCeiling(
    ort,
    { executionProviders: ['wasm'] },
    mlpTrainMatmuls(benchMlpSpec(request.hidden), request.batch),
    request.seconds,
  );
}

self.onmessage = (event: MessageEvent<WorkerRequest>) => {
  const message = event.data;
  const work: Promise<TrainReport | LoopReport | CeilingReport> =
    message.kind === 'train'
      ? train(message.request)
      : message.kind === 'loop'
        ? loop(message.request)
        : ceiling(message.request);
  work.then(
    (report) => self.postMessage({ ok: true, report } satisfies WorkerReply),
    (error: unknown) =>
      self.postMessage({
        ok: false,
        error: error instanceof Error ? `${error.message}\n${error.stack ?? ''}` : String(error),
      } satisfies WorkerReply),
  );
};
