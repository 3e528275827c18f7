/**
 * A WebGPU device lost mid-run, through the runtime seam: onnxruntime-web's
 * WASM backend computes, behind a module that says it runs on WebGPU and
 * whose device is lost at a chosen step (that step's run never answers, as
 * on a dead GPU).
 */
import 'fake-indexeddb/auto';
import * as ort from 'onnxruntime-web';
import { afterEach, describe, expect, it } from 'vitest';
import { GraphBuilder } from '../../src/core/onnx/graph';
import type { AdapterInfo } from '../../src/core/runtime/tensor-runtime';
import { readRunRecord } from '../../src/db/runs';
import { FlowbenchDb } from '../../src/db/schema';
import { OrtRuntime } from './ort-runtime';
import { engineInfo } from './adapter';
import { type OrtModule } from './ort-loader';
import { EnginePools, engineProgramHost } from './programs';
import { driveRun } from './run-driver';
import { journalTestRun, loadFlow, testDriverOptions } from './testing';

const adapter: AdapterInfo = { vendor: 'test', architecture: 'gpu', isFallbackAdapter: false };
const example = loadFlow('src/examples/spirals-mlp.flow.json');

/** An ORT module on "WebGPU" whose device is lost when run number `loseAt` starts (or when `lose` is called). */
function lossyOrt(loseAt: number) {
  let lose: (info: { reason: string; message: string }) => void = () => undefined;
  const lost = new Promise<{ reason: string; message: string }>((resolve) => (lose = resolve));
  const counts = { runs: 0, created: 0, released: 0 };
  const module = {
    ...ort,
    env: { ...ort.env, webgpu: { device: Promise.resolve({ lost }) } },
    InferenceSession: {
      async create(model: Uint8Array) {
        const session = await ort.InferenceSession.create(model, { executionProviders: ['wasm'] });
        counts.created++;
        return {
          inputNames: session.inputNames,
          outputNames: session.outputNames,
          run(feeds: Record<string, ort.Tensor>) {
            if (++counts.runs !== loseAt) return session.run(feeds);
            lose({ reason: 'unknown', message: 'the GPU process was reset' });
            return new Promise(() => undefined);
          },
          async release() {
            counts.released++;
            await session.release();
          },
        };
      },
    },
  } as unknown as OrtModule;
  return { module, counts, lose };
}

describe('a WebGPU device lost mid-run', () => {
  let db: FlowbenchDb;
  afterEach(async () => {
    db.close();
    await db.delete();
  });

  it('ends the run in error naming the loss, with no hang, no bytes held and every session released', async () => {
    db = new FlowbenchDb(`device-loss-${crypto.randomUUID()}`);
    const { module, counts } = lossyOrt(5);
    const pools = new EnginePools(() => adapter);
    const info = engineInfo(adapter);
    const id = await journalTestRun(db, example, { steps: 30 }, { backendChoice: 'webgpu' });
    const status = await driveRun(id, new AbortController().signal, {
      ...testDriverOptions(db),
      runtimeFor: (choice) =>
        Promise.resolve(
          // One session run per step (device loops, whose runs race the same loss, upload
          // through a GPU device this stand-in does not have).
          new OrtRuntime(
            info,
            () => Promise.resolve(module),
            OrtRuntime.resolve(choice, info),
            undefined,
            { deviceLoops: false },
          ),
        ),
      programHost: (runtime) => engineProgramHost(runtime, pools),
    });

    expect(status).toBe('error');
    const record = (await readRunRecord(db, id))!;
    const train = record.nodes.find((node) => node.node === 'train');
    expect(train?.status).toBe('error');
    expect(train?.error).toBe(
      'train (unit 5 of 30) on webgpu: the WebGPU device was lost: the GPU process was reset',
    );
    expect(record.run.statusReason).toContain('the WebGPU device was lost');
    expect(pools.pool('webgpu').used).toBe(0);
    expect(counts.created).toBeGreaterThan(0);
    expect(counts.released).toBe(counts.created);
  });

  it('refuses new WebGPU sessions and runs at once once the device is gone; WASM still runs', async () => {
    const { module } = lossyOrt(1);
    const info = engineInfo(adapter);
    const runtime = new OrtRuntime(info, () => Promise.resolve(module), 'webgpu');
    const g = new GraphBuilder('relu');
    g.output(g.op('Relu', [g.input('x', 'float32', [1, 2])]), 'y', 'float32', [1, 2]);
    const relu = g.toModel();
    const session = await runtime.createSession(relu, 'webgpu');
    const x = { type: 'float32' as const, data: Float32Array.of(-1, 2), dims: [1, 2] };
    await expect(session.run({ x })).rejects.toThrow(
      expect.objectContaining({ code: 'device-lost' }),
    );
    expect(runtime.deviceLost?.message).toBe(
      'the WebGPU device was lost: the GPU process was reset',
    );
    await expect(session.run({ x })).rejects.toThrow(/device was lost/);
    await expect(runtime.createSession(relu, 'webgpu')).rejects.toThrow(
      expect.objectContaining({ code: 'device-lost' }),
    );
    const wasm = await runtime.createSession(relu, 'wasm');
    expect(Array.from((await wasm.run({ x })).y!.dims)).toEqual([1, 2]);
    await runtime.releaseAll();
  });

  it('takes a device destroyed on purpose (onnxruntime letting it go) for no loss', async () => {
    const { module, lose } = lossyOrt(0);
    const runtime = new OrtRuntime(engineInfo(adapter), () => Promise.resolve(module), 'webgpu');
    const g = new GraphBuilder('relu');
    g.output(g.op('Relu', [g.input('x', 'float32', [1, 2])]), 'y', 'float32', [1, 2]);
    const relu = g.toModel();
    const x = { type: 'float32' as const, data: Float32Array.of(-1, 2), dims: [1, 2] };
    const first = await runtime.createSession(relu, 'webgpu');
    lose({ reason: 'destroyed', message: 'Device was destroyed.' });
    await first.release();
    const next = await runtime.createSession(relu, 'webgpu');
    const y = (await next.run({ x })).y;
    expect(y && 'data' in y ? Array.from(y.data) : y).toEqual([0, 2]);
    expect(runtime.deviceLost).toBeNull();
    await runtime.releaseAll();
  });
});
