/**
 * The pool admits a loop's dataset by the rule the runtime keeps it on the
 * device by: for datasets just under and just over the cap (and over one
 * storage binding), the runner's count and the device loop's decision agree.
 * The runtime runs on a stand-in WebGPU module whose buffers only keep what
 * was written to them; no step runs.
 */
import { describe, expect, it } from 'vitest';
import { datasetDeviceBytes } from '../../src/core/programs/loop-dataset';
import { modelId, type LoopDataset, type ModelDef } from '../../src/core/programs/program';
import type { AdapterInfo, Tensor } from '../../src/core/runtime/tensor-runtime';
import { engineInfo } from './adapter';
import type { OrtModule } from './ort-loader';
import { OrtRuntime } from './ort-runtime';

const CAP = 4096;
const BINDING = 3000;
const adapter: AdapterInfo = {
  vendor: 'test',
  architecture: 'gpu',
  isFallbackAdapter: false,
  limits: { maxBufferSize: 1024 ** 3, maxStorageBufferBindingSize: BINDING },
};

/** An ORT module on a stand-in WebGPU device: sessions that run nothing, buffers that hold nothing. */
function standInGpu(): OrtModule {
  const device = {
    lost: new Promise(() => undefined),
    createBuffer: () => ({ destroy: () => undefined }),
    queue: { writeBuffer: () => undefined },
  };
  return {
    Tensor: {
      fromGpuBuffer: (_buffer: unknown, o: { dataType: string; dims: readonly number[] }) => ({
        location: 'gpu-buffer',
        type: o.dataType,
        dims: o.dims,
        dispose: () => undefined,
      }),
    },
    env: { webgpu: { device: Promise.resolve(device) } },
    InferenceSession: {
      create: () =>
        Promise.resolve({
          inputNames: ['dataset.x', 'dataset.y', 'rows'],
          outputNames: ['loss'],
          run: () => Promise.reject(new Error('no step runs here')),
          release: () => Promise.resolve(),
        }),
    },
  } as unknown as OrtModule;
}

const floats = (bytes: number): Tensor => ({
  type: 'float32',
  data: new Float32Array(bytes / 4),
  dims: [bytes / 4],
});

const def: ModelDef = {
  id: modelId('train/train-step'),
  model: new Uint8Array(),
  gatheringModel: new Uint8Array(),
  session: { loops: true },
  residentBytes: 0,
};

/** Whether the runtime's device loop keeps `x` and `y`, and what the pool counts for them. */
async function decide(xBytes: number, yBytes: number) {
  const runtime = new OrtRuntime(
    engineInfo(adapter),
    () => Promise.resolve(standInGpu()),
    'webgpu',
    undefined,
    { residentDatasetBytes: CAP },
  );
  const session = await runtime.createSession(def.gatheringModel!, 'auto', def.session);
  const loop = await session.openLoop!({
    carried: [],
    initial: {},
    constants: {},
    read: [],
    resident: { 'dataset.x': floats(xBytes), 'dataset.y': floats(yBytes) },
  });
  const dataset: LoopDataset = { model: def.id, features: xBytes, labels: yBytes, rows: 64 };
  const counted = datasetDeviceBytes(dataset, def, runtime);
  await loop.close();
  await runtime.releaseAll();
  return { resident: loop.resident, counted };
}

describe('the resident dataset rule', () => {
  it('admits a dataset at or just under the cap, as the device loop keeps it', async () => {
    for (const [x, y] of [
      [CAP / 2, CAP / 2],
      [CAP / 2, CAP / 2 - 4],
    ] as const) {
      const { resident, counted } = await decide(x, y);
      expect(resident).toBe(true);
      expect(counted).toBe(x + y + 64);
    }
  });

  it('counts nothing for a dataset just over the cap or one binding, which the device loop leaves off', async () => {
    for (const [x, y] of [
      [CAP / 2, CAP / 2 + 4],
      [BINDING + 4, 4],
    ] as const) {
      const { resident, counted } = await decide(x, y);
      expect(resident).toBe(false);
      expect(counted).toBe(0);
    }
  });
});
