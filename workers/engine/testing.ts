/**
 * Shared set-up for engine tests under Node: journal a run the way the UI
 * does, and driver options over real onnxruntime-web (WASM) with real timers.
 */
import * as ort from 'onnxruntime-web';
import { readFileSync } from 'node:fs';
import { inProcessProducers } from '../../src/core/live/producer-host';
import { builtinCatalog } from '../../src/core/nodes';
import type { EngineInfo, TensorRuntime } from '../../src/core/runtime/tensor-runtime';
import { flowDocumentSchema, type FlowDocument } from '../../src/core/flow/document';
import { queuedRun } from '../../src/core/run/request';
import type { RunId, RunRow } from '../../src/core/run/record';
import { journalRun } from '../../src/db/runs';
import type { FlowbenchDb } from '../../src/db/schema';
import { OrtRuntime } from './ort-runtime';
import { engineInfo } from './adapter';
import type { RunDriverOptions } from './run-driver';
import type { RunServiceOptions } from './run-service';
import { createCatalog } from '../../src/core/catalog/catalog';
import { reviveError } from '../../src/core/errors';
import type { ImportedFile } from '../protocol';
import { importFiles } from './run-import';
import { defineNodeKind, type NodeFile } from '../../src/core/catalog/kind';
import { executeFlow, type ExecuteResult } from '../../src/core/engine/executor';
import type { RunParams } from '../../src/core/run/params';
import { sha256Hex } from '../../src/core/run/digest';

export function loadFlow(path: string): FlowDocument {
  return flowDocumentSchema.parse(JSON.parse(readFileSync(path, 'utf8')));
}

let counter = 0;

export async function journalTestRun(
  db: FlowbenchDb,
  flow: FlowDocument,
  params: RunRow['params'],
  changes: Partial<RunRow> = {},
): Promise<RunId> {
  const id = `run-${String(++counter).padStart(4, '0')}` as RunId;
  const request = {
    flowId: null,
    flowVersion: 1,
    flow,
    params,
    seed: changes.seed ?? 0,
    backendChoice: changes.backendChoice ?? 'auto',
    cause: 'ui' as const,
  };
  await journalRun(db, { ...(await queuedRun(request, id, new Date())), ...changes });
  return id;
}

/** A stored file as a node reads it, under its content digest. */
export async function storedFile(
  name: string,
  bytes: Uint8Array,
  mediaType: string,
): Promise<NodeFile> {
  return { name, bytes, mediaType, digest: `sha256:${await sha256Hex(bytes)}` };
}

/** What a flow run by {@link runOnWasm} gave, in the order it happened. */
export interface WasmRun {
  readonly result: ExecuteResult;
  /** Node → the error it failed with. */
  readonly errors: Record<string, string>;
  readonly emitted: { node: string; port: string; value: unknown }[];
  readonly logs: { node: string; message: string }[];
  readonly artifacts: { node: string; name: string; bytes: Uint8Array; mediaType: string }[];
}

/**
 * Runs `flow` through the executor on onnxruntime-web's WASM backend under
 * Node, reading `files` by digest, and gathers what the run reported.
 */
export function runOnWasm(
  flow: FlowDocument,
  files: readonly NodeFile[],
  inputs: RunParams = {},
): Promise<WasmRun> {
  return runOnRuntime(
    flow,
    files,
    new OrtRuntime(engineInfo(null), () => Promise.resolve(ort), 'wasm'),
    inputs,
  );
}

/** `runOnWasm` on another runtime (a WebGPU one over a stand-in device, say). */
export async function runOnRuntime(
  flow: FlowDocument,
  files: readonly NodeFile[],
  runtime: TensorRuntime,
  inputs: RunParams = {},
): Promise<WasmRun> {
  const run: Omit<WasmRun, 'result'> = { errors: {}, emitted: [], logs: [], artifacts: [] };
  const result = await executeFlow({
    flow,
    catalog: builtinCatalog,
    inputs,
    runtime,
    producers: inProcessProducers,
    readFile: (digest) => {
      const found = files.find((f) => f.digest === digest);
      return found ? Promise.resolve(found) : Promise.reject(new Error(`${digest} not stored`));
    },
    signal: new AbortController().signal,
    now: () => Date.now(),
    events: {
      nodeQueued: () => undefined,
      nodeStarted: () => undefined,
      nodeFinished: (node, outcome) => {
        if (outcome.error) run.errors[node] = outcome.error;
      },
      emitted: (node, port, value) => run.emitted.push({ node, port, value }),
      log: (node, message) => run.logs.push({ node, message }),
      progress: () => undefined,
      artifact: (node, name, bytes, mediaType) =>
        run.artifacts.push({ node, name, bytes, mediaType }),
      interval: () => undefined,
    },
  });
  return { result, ...run };
}

export function nodeRuntime(info: EngineInfo = engineInfo(null)): RunDriverOptions['runtimeFor'] {
  return (choice) =>
    Promise.resolve(
      new OrtRuntime(info, () => Promise.resolve(ort), OrtRuntime.resolve(choice, info)),
    );
}

export function testDriverOptions(
  db: FlowbenchDb,
): Pick<RunDriverOptions, 'db' | 'catalog' | 'runtimeFor' | 'producers' | 'now' | 'setTimer'> {
  return {
    db,
    catalog: builtinCatalog,
    runtimeFor: nodeRuntime(),
    producers: inProcessProducers,
    now: () => Date.now(),
    setTimer: (fire, ms) => {
      const timer = setTimeout(fire, ms);
      return () => clearTimeout(timer);
    },
  };
}

/**
 * Web Locks as one browser profile has them, shared by the engines of a
 * test: a lock is held by one holder at a time, waiters get it in turn, and
 * `tryLock` gives up at once when it is held.
 */
export function testLocks(): Pick<RunServiceOptions, 'withLock' | 'tryLock'> & {
  held(): string[];
} {
  const held = new Set<string>();
  const waiting = new Map<string, (() => void)[]>();
  const release = (name: string) => {
    const next = waiting.get(name)?.shift();
    if (next) next();
    else held.delete(name);
  };
  return {
    held: () => [...held].sort(),
    async withLock(name, body) {
      if (held.has(name))
        await new Promise<void>((resolve) => {
          const queue = waiting.get(name) ?? [];
          queue.push(resolve);
          waiting.set(name, queue);
        });
      else held.add(name);
      try {
        return await body();
      } finally {
        release(name);
      }
    },
    async tryLock(name, body) {
      if (held.has(name)) return null;
      held.add(name);
      try {
        return { value: await body() };
      } finally {
        release(name);
      }
    },
  };
}

/**
 * A node kind (`test.gate`) that logs, then waits until the test opens it or
 * the run is cancelled: a run that stays running exactly as long as a test
 * needs. `flow` is a one-node flow of it.
 */
export function testGate() {
  const waiting: { open: () => void; log: (message: string) => void }[] = [];
  const kind = defineNodeKind({
    kind: 'test.gate',
    title: 'Gate',
    category: 'data',
    description: 'Waits until the test opens it.',
    params: {},
    inputs: [],
    outputs: [],
    async execute(ctx) {
      ctx.log('waiting at the gate');
      await new Promise<void>((resolve, reject) => {
        waiting.push({ open: resolve, log: (message) => ctx.log(message) });
        ctx.signal.addEventListener('abort', () => reject(new Error('cancelled')), { once: true });
      });
      ctx.log('through the gate');
    },
  });
  const flow: FlowDocument = {
    format: 'flowbench.flow/1',
    name: 'gate',
    inputs: [],
    outputs: [],
    nodes: [{ id: 'gate', kind: 'test.gate', params: {}, position: { x: 0, y: 0 } }],
    edges: [],
  };
  return {
    catalog: createCatalog([kind]),
    flow,
    /** How many gates wait now. */
    waiting: () => waiting.length,
    /** Let the longest-waiting gate through. */
    openOne: () => waiting.shift()?.open(),
    /** Each waiting gate's node logs `message`. */
    log: (message: string) => waiting.forEach((gate) => gate.log(message)),
  };
}

/** Resolves once `condition` holds, checking every few milliseconds. */
export async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 5));
}

/**
 * Imports one file through the engine's only import path (`importFiles`) and
 * throws the error a refused file gets, as the page does for a single file.
 */
export async function importFile(db: FlowbenchDb, name: string, file: Blob): Promise<ImportedFile> {
  const [outcome] = await importFiles(db, [{ name, file }]);
  if (outcome === undefined) throw new Error('unreachable: no outcome for the one file');
  if (outcome.kind === 'refused') throw reviveError(outcome.error);
  return outcome;
}

/** Timers the test fires by hand. */
export function manualTimers() {
  const due: (() => void)[] = [];
  return {
    setTimer: (fire: () => void) => {
      due.push(fire);
      return () => due.splice(due.indexOf(fire) >>> 0, 1);
    },
    fireAll: () => due.splice(0).forEach((fire) => fire()),
    pending: () => due.length,
  };
}
