/**
 * Sessions in the model worker, under Node: the engine's `RemoteRuntime` and
 * the worker's `serveModels` joined by a `MessageChannel`, so every call
 * really crosses a port (outputs' buffers transferred) as it does between
 * workers, with real onnxruntime-web (WASM) behind it.
 */
import 'fake-indexeddb/auto';
import * as ort from 'onnxruntime-web';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { float32, isDeviceTensor, type DeviceTensor } from '../../src/core/engine/runtime';
import { GraphBuilder } from '../../src/core/onnx/graph';
import { metricSeries, readRunRecord } from '../../src/db/runs';
import { FlowbenchDb } from '../../src/db/schema';
import type { ModelReply, ModelRequest } from '../model-protocol';
import { serveModels, type Locks } from './model-host';
import { engineInfo, OrtRuntime } from './ort-runtime';
import { ModelWorker, ModelWorkerError, RemoteRuntime, type ModelPort } from './remote-runtime';
import { driveRun } from './run-driver';
import { journalTestRun, loadFlow, testDriverOptions } from './testing';

const info = engineInfo(null);

/**
 * Web Locks as the browser keeps them for the engine and its model workers:
 * a lock a worker holds goes to the engine's request once the worker is gone.
 */
class WorkerLocks {
  private readonly waiting = new Map<string, () => void>();
  /** The model workers' side. */
  readonly worker: Locks = {
    request: (_name, callback) => {
      void callback();
      return new Promise(() => undefined);
    },
  };
  /** The engine's side. */
  readonly engine: Locks = {
    request: (name, callback) =>
      new Promise((granted) => this.waiting.set(name, () => granted(callback()))),
  };

  /** The worker holding `name` is gone: its lock is free. */
  release(name: string): void {
    this.waiting.get(name)?.();
    this.waiting.delete(name);
  }
}
const locks = new WorkerLocks();

/** A model "worker": `serveModels` over in-process onnxruntime-web, on the far end of a channel. */
class ChannelWorker implements ModelPort {
  terminated = false;
  readonly requests: ModelRequest[] = [];
  readonly replies: ModelReply[] = [];
  private readonly channel = new MessageChannel();
  private readonly onError: ((event: ErrorEvent) => void)[] = [];

  constructor() {
    serveModels(
      this.channel.port2,
      (engine, runBackend) => new OrtRuntime(engine, () => Promise.resolve(ort), runBackend),
      locks.worker,
    );
    this.channel.port1.addEventListener('message', (event) => {
      this.replies.push((event as MessageEvent<ModelReply>).data);
    });
    this.channel.port1.start();
    this.channel.port2.start();
  }

  postMessage(message: ModelRequest, transfer: Transferable[] = []): void {
    this.requests.push(message);
    this.channel.port1.postMessage(message, transfer);
  }

  addEventListener(type: 'message', listener: (event: MessageEvent<ModelReply>) => void): void;
  addEventListener(type: 'error', listener: (event: ErrorEvent) => void): void;
  addEventListener(
    type: 'message' | 'error',
    listener: ((event: MessageEvent<ModelReply>) => void) | ((event: ErrorEvent) => void),
  ): void {
    if (type === 'message')
      this.channel.port1.addEventListener('message', listener as (event: MessageEvent) => void);
    else this.onError.push(listener as (event: ErrorEvent) => void);
  }

  terminate(): void {
    this.terminated = true;
    this.vanish();
  }

  /** What a worker's `error` event says when it dies. */
  die(message: string): void {
    const event = { message, preventDefault: () => undefined } as ErrorEvent;
    for (const listener of this.onError) listener(event);
  }

  /** Gone without a word (out of memory, closed): its port is dead and its lock free. */
  vanish(): void {
    this.channel.port1.close();
    this.channel.port2.close();
    for (const request of this.requests)
      if (request.call === 'hold') locks.release(request.params.lock);
  }
}

/** y = x * w, with w an input, so a session can be fed its own output. */
function scaleModel(): Uint8Array {
  const g = new GraphBuilder('scale');
  const x = g.input('x', 'float32', [3]);
  const w = g.input('w', 'float32', [3]);
  g.output(g.op('Mul', [x, w]), 'y', 'float32', [3]);
  return g.toModel();
}

describe('RemoteRuntime over the model protocol', () => {
  let spawned: ChannelWorker[];
  let worker: ModelWorker;
  beforeEach(() => {
    spawned = [];
    worker = new ModelWorker(() => {
      const made = new ChannelWorker();
      spawned.push(made);
      return made;
    }, locks.engine);
  });
  afterEach(() => {
    for (const made of spawned) made.terminate();
  });

  it('runs a session, keeps device outputs in the worker and feeds them back by number', async () => {
    const runtime = new RemoteRuntime(info, worker, 'wasm');
    const session = await runtime.createSession(scaleModel(), 'auto', { deviceOutputs: ['y'] });
    expect(session.backend).toBe('wasm');
    expect(session.inputNames).toEqual(['x', 'w']);

    const x = float32(Float32Array.of(1, 2, 3), [3]);
    let w: DeviceTensor | ReturnType<typeof float32> = float32(Float32Array.of(2, 2, 2), [3]);
    for (let step = 0; step < 3; step++) {
      const { y } = await session.run({ x, w });
      if (!y || !isDeviceTensor(y)) throw new Error('y should stay on the device');
      w = y;
    }
    // x * 2 * x * x, each step fed the last output, none of it copied back until read.
    expect(Array.from((await (w as DeviceTensor).read()).data)).toEqual([2, 16, 54]);
    const fedW = spawned[0]!.requests.flatMap((r) => (r.call === 'run' ? [r.params.feeds.w] : []));
    expect(fedW.map((w) => w !== undefined && 'device' in w)).toEqual([false, true, true]);

    (w as DeviceTensor).dispose();
    await expect(session.run({ x, w })).rejects.toThrow(
      'a device tensor [3] was fed after dispose()',
    );
    await runtime.releaseAll();
  });

  it('tells disposals with the next call, or alone when none follows, and gets the feed buffers back', async () => {
    const runtime = new RemoteRuntime(info, worker, 'wasm');
    const session = await runtime.createSession(scaleModel(), 'wasm', { deviceOutputs: ['y'] });
    const x = float32(Float32Array.of(1, 2, 3), [3]);
    const first = (await session.run({ x, w: x })).y as DeviceTensor;
    const second = (await session.run({ x, w: first })).y as DeviceTensor;
    first.dispose();
    await session.run({ x, w: second });
    const [channel] = spawned;
    const calls = channel!.requests.filter((r) => r.call === 'run');
    expect(calls.map((r) => r.dispose)).toEqual([undefined, undefined, [1]]);
    // Each run gave its CPU feeds back: x and w, then x alone (w was on the device).
    const runIds = new Set(calls.map((r) => r.id));
    const answers = channel!.replies.filter((r) => runIds.has(r.id));
    expect(answers.map((r) => r.buffers?.length)).toEqual([2, 1, 1]);

    second.dispose();
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(channel!.requests.at(-1)).toEqual({ call: 'dispose', dispose: [2] });
    await expect(session.run({ x, w: second })).rejects.toThrow('was fed after dispose()');
    await runtime.releaseAll();
  });

  it('answers CPU outputs with their own arrays, and lets go of every session on releaseAll', async () => {
    const runtime = new RemoteRuntime(info, worker, 'wasm');
    const session = await runtime.createSession(scaleModel(), 'wasm');
    const x = float32(Float32Array.of(1, 2, 3), [3]);
    const { y } = await session.run({ x, w: x });
    expect(y && !isDeviceTensor(y) && Array.from(y.data)).toEqual([1, 4, 9]);
    expect(Array.from(x.data)).toEqual([1, 2, 3]); // a feed is copied across, never taken

    await runtime.releaseAll();
    await expect(session.run({ x, w: x })).rejects.toThrow(/session \d+ was released/);
  });

  it('refuses a forced WebGPU session here, before any call, with the reason', async () => {
    const runtime = new RemoteRuntime(info, worker, 'wasm');
    await expect(runtime.createSession(scaleModel(), 'webgpu')).rejects.toThrow(
      'WebGPU was chosen but this browser gives no WebGPU adapter; choose auto or wasm',
    );
    expect(spawned).toHaveLength(0); // and no worker was started for it
  });

  it("brings back onnxruntime's errors with their messages, and goes on serving", async () => {
    const runtime = new RemoteRuntime(info, worker, 'wasm');
    await expect(runtime.createSession(Uint8Array.of(1, 2, 3, 4), 'wasm')).rejects.toThrow(
      'Failed to load model because protobuf parsing failed',
    );
    const session = await runtime.createSession(scaleModel(), 'wasm');
    const short = float32(Float32Array.of(1, 2), [2]);
    await expect(session.run({ x: short, w: short })).rejects.toThrow(
      'Got invalid dimensions for input: x',
    );
    const failed = spawned[0]!.replies.filter((r) => !r.ok);
    expect(failed.map((r) => r.buffers?.length)).toEqual([0, 2]); // a failed run's feeds come back too
    const x = float32(Float32Array.of(1, 2, 3), [3]);
    const { y } = await session.run({ x, w: x });
    expect(y && !isDeviceTensor(y) && Array.from(y.data)).toEqual([1, 4, 9]);
    await runtime.releaseAll();
  });

  it('fails every call of a dead worker with its death, and starts a fresh one for the next run', async () => {
    const runtime = new RemoteRuntime(info, worker, 'wasm');
    const session = await runtime.createSession(scaleModel(), 'wasm');
    const x = float32(Float32Array.of(1, 2, 3), [3]);
    const inFlight = session.run({ x, w: x });
    spawned[0]!.die('out of memory');
    const died = 'the model worker died: out of memory';
    await expect(inFlight).rejects.toThrow(died);
    await expect(inFlight).rejects.toBeInstanceOf(ModelWorkerError);
    await expect(session.run({ x, w: x })).rejects.toThrow(died);
    expect(spawned[0]!.terminated).toBe(true);
    await runtime.releaseAll(); // nothing to release in a dead worker: no hang, no error

    const next = new RemoteRuntime(info, worker, 'wasm');
    const fresh = await next.createSession(scaleModel(), 'wasm');
    const { y } = await fresh.run({ x, w: x });
    expect(y && !isDeviceTensor(y) && Array.from(y.data)).toEqual([1, 4, 9]);
    expect(spawned).toHaveLength(2);
    await next.releaseAll();
  });

  it('fails the calls of a worker gone without a word, once its lock is free', async () => {
    const runtime = new RemoteRuntime(info, worker, 'wasm');
    const session = await runtime.createSession(scaleModel(), 'wasm');
    const x = float32(Float32Array.of(1, 2, 3), [3]);
    const inFlight = session.run({ x, w: x });
    spawned[0]!.vanish(); // no error event: the port simply never answers again
    await expect(inFlight).rejects.toThrow(
      'the model worker stopped without a word (it may have run out of memory)',
    );
    await expect(session.run({ x, w: x })).rejects.toBeInstanceOf(ModelWorkerError);

    const next = new RemoteRuntime(info, worker, 'wasm');
    await (await next.createSession(scaleModel(), 'wasm')).run({ x, w: x });
    expect(spawned).toHaveLength(2);
    await next.releaseAll();
  });
});

describe('a run with its sessions in the model worker', () => {
  let db: FlowbenchDb;
  beforeEach(() => {
    db = new FlowbenchDb(`remote-${Math.random()}`);
  });
  afterEach(async () => {
    db.close();
    await db.delete();
  });

  it('records the same loss series, bit for bit, as with onnxruntime in the engine', async () => {
    const flow = loadFlow('src/examples/spirals-mlp.flow.json');
    const params = { steps: 60 };
    const worker = new ModelWorker(() => new ChannelWorker(), locks.engine);
    const base = testDriverOptions(db);
    const losses = async (runtimeFor: typeof base.runtimeFor) => {
      const runId = await journalTestRun(db, flow, params);
      expect(await driveRun(runId, new AbortController().signal, { ...base, runtimeFor })).toBe(
        'ok',
      );
      expect((await readRunRecord(db, runId))?.run.status).toBe('ok');
      return (await metricSeries(db, runId, 'train.loss')).map((p) => p.value);
    };
    const remote = await losses((choice) =>
      Promise.resolve(new RemoteRuntime(info, worker, OrtRuntime.resolve(choice, info))),
    );
    const local = await losses(base.runtimeFor);
    expect(remote.length).toBeGreaterThan(5);
    expect(remote).toEqual(local);
  });
});
