/**
 * Training loops in the model worker, under Node: the engine's
 * `ModelWorkerClient` and the worker's `serveModels` joined by a
 * `MessageChannel` (every message really crosses a port, batches
 * transferred), on the real onnxruntime-web (WASM). A run trains exactly as
 * it does with its session beside the engine — the same loss at every step,
 * the same trained model, its optimizer state included, which a second
 * training fed that model resumes — while its steps go over several per message; a
 * cancel stops it part-way; a worker that dies fails the node with its reason.
 * With no worker (the command line), the loop runs beside the engine several
 * steps a call, and trains exactly as step by step too.
 */
import * as ort from 'onnxruntime-web';
import { describe, expect, it } from 'vitest';
import { executeFlow, type ExecuteOptions } from '../../src/core/engine/executor';
import { inProcessProducers } from '../../src/core/live/producer-host';
import { builtinCatalog } from '../../src/core/nodes';
import type { TrainedModel } from '../../src/core/catalog/values';
import type { ModelReply, ModelRequest } from '../model-protocol';
import { ModelWorkerClient, type ModelPort } from './model-client';
import { serveModels } from './model-host';
import { OrtRuntime } from './ort-runtime';
import { engineInfo } from './adapter';
import { modelWorkerThreads } from './ort-loader';
import { loadFlow } from './testing';

const example = loadFlow('src/examples/spirals-mlp.flow.json');
/** The example trained with Adam, whose step count goes with each step's batch. */
const withAdam = {
  ...example,
  nodes: example.nodes.map((n) =>
    n.id === 'train' ? { ...n, params: { ...n.params, optimizer: 'adam', lr: 0.01 } } : n,
  ),
};

/** The example with a second training fed the first's trained model (and the same rows). */
const chained = {
  ...withAdam,
  nodes: [
    ...withAdam.nodes,
    { ...withAdam.nodes.find((n) => n.id === 'train')!, id: 'again', position: { x: 900, y: 400 } },
  ],
  edges: [
    ...withAdam.edges,
    { from: 'train.model', to: 'again.model' },
    { from: 'split.train', to: 'again.dataset' },
  ],
};

const bits = (values: Readonly<Record<string, Float32Array>>) =>
  Object.fromEntries(
    Object.entries(values).map(([k, v]) => [k, new Uint32Array(v.slice().buffer)]),
  );

/** Web Locks in one process: a lock held is granted to the next asker when its holder goes. */
class FakeLocks {
  private readonly held = new Set<string>();
  private readonly waiting = new Map<string, (() => unknown)[]>();

  request(name: string, callback: () => unknown): Promise<unknown> {
    if (this.held.has(name)) {
      this.waiting.set(name, [...(this.waiting.get(name) ?? []), callback]);
      return new Promise(() => undefined);
    }
    this.held.add(name);
    return Promise.resolve(callback());
  }

  /** The holder of `name` is gone: the first waiter gets the lock. */
  free(name: string): void {
    this.held.delete(name);
    const [next, ...rest] = this.waiting.get(name) ?? [];
    this.waiting.set(name, rest);
    if (next !== undefined) void this.request(name, next);
  }
}

/** A model "worker": `serveModels` on the far end of a channel; it can be made to die. */
class ChannelWorker implements ModelPort {
  readonly requests: ModelRequest[] = [];
  private readonly channel = new MessageChannel();
  private readonly onError: ((event: ErrorEvent) => void)[] = [];

  constructor(private readonly locks?: FakeLocks) {
    const runtime = new OrtRuntime(engineInfo(null), () => Promise.resolve(ort), 'wasm');
    serveModels(this.channel.port2, { runtime, threads: 1, ...(locks && { locks }) });
    this.channel.port1.start();
    this.channel.port2.start();
  }

  postMessage(message: ModelRequest, transfer: Transferable[] = []): void {
    this.requests.push(message);
    this.channel.port1.postMessage(message, transfer);
  }

  addEventListener(type: 'message', listener: (event: MessageEvent<ModelReply>) => void): void;
  addEventListener(type: 'error', listener: (event: ErrorEvent) => void): void;
  addEventListener(type: 'message' | 'error', listener: (event: never) => void): void {
    if (type === 'error') this.onError.push(listener as (event: ErrorEvent) => void);
    else this.channel.port1.addEventListener('message', listener as (event: Event) => void);
  }

  terminate(): void {
    this.channel.port1.close();
    this.channel.port2.close();
  }

  /** What a worker's `error` event says when it dies. */
  die(message: string): void {
    const event = { message, preventDefault: () => undefined } as ErrorEvent;
    for (const listener of this.onError) listener(event);
  }

  /** Gone without a word, as a worker out of memory goes: no event, no answer, its lock free. */
  vanish(): void {
    this.channel.port2.close();
    for (const r of this.requests) if (r.call === 'hold') this.locks?.free(r.params.lock);
  }

  calls(call: ModelRequest['call']): number {
    return this.requests.filter((r) => r.call === call).length;
  }
}

interface Trained {
  status: string;
  loss: number[];
  accuracy: unknown;
  logs: string[];
  errors: Record<string, string>;
  /** The trained model each training node emitted. */
  models: Record<string, TrainedModel>;
  /** What the second training of `chained` logged. */
  againLogs: string[];
}

/** The example through the executor, on a runtime with or without a model worker. */
async function train(
  steps: number,
  worker: ChannelWorker | null,
  options: {
    signal?: AbortSignal;
    onLoss?: (count: number) => void;
    flow?: typeof example;
    /** With no worker: run the loop's steps K per call beside the engine (session-loop.ts), not one per run. */
    sessionLoops?: boolean;
  } = {},
): Promise<Trained> {
  const loss: number[] = [];
  const logs: string[] = [];
  const errors: Record<string, string> = {};
  const models: Record<string, TrainedModel> = {};
  const againLogs: string[] = [];
  const client = worker === null ? undefined : new ModelWorkerClient(() => worker);
  const events: ExecuteOptions['events'] = {
    nodeQueued: () => undefined,
    nodeStarted: () => undefined,
    nodeFinished: (node, outcome) => {
      if (outcome.error) errors[node] = outcome.error;
    },
    emitted: (node, port, value) => {
      if (port === 'model') models[node] = value as TrainedModel;
      if (node !== 'train' || port !== 'loss' || typeof value !== 'number') return;
      loss.push(value);
      options.onLoss?.(loss.length);
    },
    log: (node, line) => {
      if (node === 'train') logs.push(line);
      if (node === 'again') againLogs.push(line);
    },
    progress: () => undefined,
    artifact: () => undefined,
    interval: () => undefined,
  };
  const result = await executeFlow({
    flow: options.flow ?? example,
    catalog: builtinCatalog,
    inputs: { steps, lr: 0.1, seed: 0 },
    runtime: new OrtRuntime(engineInfo(null), () => Promise.resolve(ort), 'wasm', client, {
      sessionLoops: options.sessionLoops ?? false,
    }),
    producers: inProcessProducers,
    signal: options.signal ?? new AbortController().signal,
    now: () => Date.now(),
    events,
  });
  return {
    status: result.status,
    loss,
    accuracy: result.outputs.accuracy,
    logs,
    errors,
    models,
    againLogs,
  };
}

describe('training loops in the model worker', () => {
  it('trains exactly as beside the engine, several steps a message', async () => {
    const steps = 120;
    const here = await train(steps, null);
    const worker = new ChannelWorker();
    const there = await train(steps, worker);
    expect(here.status).toBe('ok');
    expect(there.status).toBe('ok');
    expect(there.errors).toEqual({});
    // Every logged loss (the mean of 5 steps), at every point, bit for bit.
    expect(there.loss).toHaveLength(steps / 5);
    expect(there.loss).toEqual(here.loss);
    expect(there.accuracy).toBe(here.accuracy);
    expect(there.logs).toContain('training in the model worker (1 onnxruntime thread)');
    expect(here.logs.some((l) => l.includes('model worker'))).toBe(false);
    // The steps went over in fewer messages than steps; the first one alone.
    const messages = worker.requests.flatMap((r) => (r.call === 'steps' ? [r.params.steps] : []));
    expect(messages.length).toBeGreaterThan(1);
    expect(messages.length).toBeLessThan(steps);
    expect(messages[0]).toHaveLength(1);
    expect(there.logs.find((l) => l.startsWith(`${messages.length} messages of 1–`))).toBeDefined();
    // Everything opened was let go: the loop closed, the session released.
    expect(worker.calls('close')).toBe(worker.calls('open'));
    expect(worker.calls('release')).toBe(worker.calls('create'));
  }, 60_000);

  it('with no model worker, runs the loop beside the engine several steps a call, exactly as step by step', async () => {
    const steps = 120;
    const stepwise = await train(steps, null);
    const looped = await train(steps, null, { sessionLoops: true });
    expect(looped.status).toBe('ok');
    expect(looped.loss).toHaveLength(steps / 5);
    expect(looped.loss).toEqual(stepwise.loss);
    expect(looped.accuracy).toBe(stepwise.accuracy);
    // The loop's log says how its calls went; step by step there are none.
    expect(looped.logs.some((l) => /^\d+ messages of 1–\d+ steps/.test(l))).toBe(true);
    expect(stepwise.logs.some((l) => l.includes('messages of'))).toBe(false);
    const adam = await train(40, null, { flow: chained });
    const adamLooped = await train(40, null, { flow: chained, sessionLoops: true });
    // Both trainings ran, the second beside the first's evaluation (their runs take turns).
    expect(adamLooped.errors).toEqual({});
    for (const node of ['train', 'again']) {
      expect(bits(adamLooped.models[node]!.weights.values)).toEqual(
        bits(adam.models[node]!.weights.values),
      );
      expect(bits(adamLooped.models[node]!.optimizerState!.tensors)).toEqual(
        bits(adam.models[node]!.optimizerState!.tensors),
      );
    }
  }, 60_000);

  it('trains with Adam exactly as beside the engine (its step count goes with each batch)', async () => {
    const here = await train(40, null, { flow: withAdam });
    const there = await train(40, new ChannelWorker(), { flow: withAdam });
    expect(there.status).toBe('ok');
    expect(there.loss).toHaveLength(8);
    expect(there.loss).toEqual(here.loss);
  }, 60_000);

  it('hands back the optimizer state with the weights, and a second training there resumes it', async () => {
    const here = await train(20, null, { flow: chained });
    const there = await train(20, new ChannelWorker(), { flow: chained });
    expect(there.status).toBe('ok');
    expect(there.againLogs).toContain('training in the model worker (1 onnxruntime thread)');
    expect(there.againLogs).toContain('resumed adam state from the input model (20 steps before)');
    for (const node of ['train', 'again']) {
      const state = there.models[node]!.optimizerState!;
      expect(state.steps).toBe(node === 'train' ? 20 : 40);
      // Both moments of every weight, bit for bit as beside the engine.
      expect(Object.keys(state.tensors)).toHaveLength(
        2 * there.models[node]!.weights.layout.length,
      );
      expect(bits(state.tensors)).toEqual(bits(here.models[node]!.optimizerState!.tensors));
      expect(bits(there.models[node]!.weights.values)).toEqual(
        bits(here.models[node]!.weights.values),
      );
    }
  }, 60_000);

  it('a cancel stops the loop part-way and the run ends cancelled', async () => {
    const worker = new ChannelWorker();
    const abort = new AbortController();
    const run = await train(100_000, worker, {
      signal: abort.signal,
      onLoss: (count) => {
        if (count === 10) abort.abort();
      },
    });
    expect(run.status).toBe('cancelled');
    expect(run.loss.length).toBeGreaterThanOrEqual(10);
    expect(run.loss.length).toBeLessThan(100_000 / 5);
    expect(worker.calls('close')).toBe(1);
    expect(worker.calls('release')).toBe(1);
  }, 60_000);

  for (const way of ['dies', 'vanishes'] as const)
    it(`a model worker that ${way} fails the node with its reason; the next run starts a fresh one`, async () => {
      const locks = new FakeLocks();
      const workers: ChannelWorker[] = [];
      const client = new ModelWorkerClient(() => {
        const worker = new ChannelWorker(locks);
        workers.push(worker);
        return worker;
      }, locks);
      const errors: Record<string, string> = {};
      let emitted = 0;
      const run = (steps: number) =>
        executeFlow({
          flow: example,
          catalog: builtinCatalog,
          inputs: { steps, lr: 0.1, seed: 0 },
          runtime: new OrtRuntime(engineInfo(null), () => Promise.resolve(ort), 'wasm', client),
          producers: inProcessProducers,
          signal: new AbortController().signal,
          now: () => Date.now(),
          events: {
            nodeQueued: () => undefined,
            nodeStarted: () => undefined,
            nodeFinished: (node, outcome) => {
              if (outcome.error) errors[node] = outcome.error;
            },
            emitted: (node, port) => {
              if (node !== 'train' || port !== 'loss' || ++emitted !== 3) return;
              if (way === 'dies') workers[0]!.die('out of memory');
              else workers[0]!.vanish();
            },
            log: () => undefined,
            progress: () => undefined,
            artifact: () => undefined,
            interval: () => undefined,
          },
        });
      const died = await run(100_000);
      expect(died.status).toBe('error');
      expect(errors.train).toContain(
        way === 'dies'
          ? 'The model worker died: out of memory'
          : 'The model worker died: it stopped without a word (it may have run out of memory)',
      );
      const again = await run(20);
      expect(again.status).toBe('ok');
      expect(workers).toHaveLength(2);
    }, 60_000);
});

describe('modelWorkerThreads', () => {
  it('leaves a core to the page, never fewer than two threads on two cores, at most four', () => {
    expect(modelWorkerThreads(undefined)).toBe(1);
    expect(modelWorkerThreads(1)).toBe(1);
    expect(modelWorkerThreads(2)).toBe(2);
    expect(modelWorkerThreads(3)).toBe(2);
    expect(modelWorkerThreads(4)).toBe(3);
    expect(modelWorkerThreads(16)).toBe(4);
  });
});
