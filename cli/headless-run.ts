/**
 * One flow run headless, in Node, by the browser engine's own run driver:
 * the run is checked and journaled as the app journals it, driven by the
 * same driver over the same node kinds and core, and its record is read
 * back and exported by the app's export code. Node has no IndexedDB, so the
 * record lives in an in-memory one (fake-indexeddb) for the run's length;
 * the trade-off is a copy of every point in memory, which buys a run file
 * that is the browser's, field for field, with no second writer to keep in
 * step.
 */
import 'fake-indexeddb/auto';
import type { Catalog } from '../src/core/catalog/catalog';
import { builtinCatalog } from '../src/core/nodes';
import type { FlowDocument } from '../src/core/flow/document';
import { toRunExport, type RunExport, type RunRecord } from '../src/core/run/export';
import type { RunId, RunStatus } from '../src/core/run/record';
import { storeFile } from '../src/db/files';
import { putRunNodes, runNodes } from '../src/db/run-nodes';
import { journalRun, readRunRecord, updateRun } from '../src/db/runs';
import { FlowbenchDb } from '../src/db/schema';
import { checkRequest } from '../src/core/run/check';
import { queuedRun, type RunRequest } from '../src/core/run/request';
import { v7 as uuidv7 } from 'uuid';
import { OrtRuntime } from '../workers/engine/ort-runtime';
import { engineInfo } from '../workers/engine/adapter';
import { driveRun, LEASE_MS } from '../workers/engine/run-driver';
import { cpuEngineLabel, loadOrt, type CliBackend } from './backend';
import { nodeFingerprint } from './fingerprint';
import { threadProducers } from './producer-threads';
import type { GivenFile } from './files';

/** What a headless run reports as it goes. */
export interface HeadlessEvents {
  /** The run was checked and journaled; it starts now. */
  started(runId: RunId): void;
  /** Node `node` finished `done` of its `total` units (steps), at `perSecond` where it measured one. */
  progress(node: string, done: number, total: number, perSecond?: number): void;
  /** A streaming port's latest value (thinned by its rate limit, as in the browser). */
  live(node: string, port: string, value: number): void;
}

export interface HeadlessRun {
  flow: FlowDocument;
  params: Record<string, unknown>;
  seed?: number;
  /** The run's id, when it was fixed beforehand (a queued sweep trial); default a new one. */
  runId?: RunId;
  /** The sweep it belongs to (the record's `groupId`, as the app's sweeps group runs); its cause is then `sweep`. */
  groupId?: string;
  /** The run it runs again as it ran (a run file's or bundle's, flow-source.ts): the app compares their series. */
  rerunOf?: RunId;
  /** The node kinds it may use; default the app's (a bench passes its own). */
  catalog?: Catalog;
  /** Where its sessions run (backend.ts); default `wasm`, the browser's engine. */
  backend?: CliBackend;
  /** Threads per session on `cpu` (default onnxruntime's: one per core); `wasm` runs on one. */
  threads?: number;
  /** Files the flow's file params may name (by their `sha256:` digest), as if picked in the app. */
  files?: readonly GivenFile[];
  signal: AbortSignal;
  events: HeadlessEvents;
}

let databases = 0;

/**
 * A `cpu` run's node logs and errors, saying `cpu` where they say where a
 * session ran. The engine drives onnxruntime-node as the browser backend it
 * stands in for, so a node's session says `wasm` ("training on wasm with
 * adam", "94 of 120 rows right on wasm"), which the record of a run on
 * onnxruntime-node's CPU provider must not.
 */
async function sayCpu(db: FlowbenchDb, runId: RunId): Promise<void> {
  const onCpu = (text: string) => text.replace(/\bon wasm\b/g, 'on cpu');
  const rows = await runNodes(db, runId);
  await putRunNodes(
    db,
    rows.map((row) => ({ ...row, logs: onCpu(row.logs), error: onCpu(row.error) })),
  );
}

/** A turn of Node's event loop: what a run lets in between its loop's units. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * How the driver keeps a headless run's record. The record is this
 * process's own, in memory, and read back only once the run has ended:
 * nobody reads its points meanwhile, a crash loses it whole, and a cancel
 * comes through the run's signal, never through the record. So points are
 * written a full batch at a time (1,024) or at the end, not every half
 * second, and the record is read for a cancel request only when the lease
 * is renewed, not twice a second. Each write or read clones rows in the
 * in-memory store on the thread that runs the training, between its steps.
 */
const headlessRecord = {
  metricBatch: { maxDelayMs: 60_000 },
  cancelPollMs: LEASE_MS / 3,
} as const;

/**
 * Check, journal and drive one run to its end; resolves with its status and
 * its run file. Throws `invalid-flow` (nothing run) when the flow or params
 * are refused.
 */
export async function runHeadless(
  run: HeadlessRun,
): Promise<{ status: RunStatus; file: RunExport; record: RunRecord }> {
  const backend = run.backend ?? 'wasm';
  const ort = await loadOrt(backend, run.threads);
  const db = new FlowbenchDb(`flowbench-cli-${process.pid}-${++databases}`);
  try {
    for (const file of run.files ?? []) await storeFile(db, file.name, file.bytes, file.mediaType);
    const request: RunRequest = {
      flowId: null,
      flowVersion: 1,
      flow: run.flow,
      params: run.params,
      ...(run.seed !== undefined && { seed: run.seed }),
      // The browser's choices have no `cpu`: such a run re-run in a browser takes the browser's pick.
      backendChoice: backend === 'cpu' ? 'auto' : 'wasm',
      cause: run.groupId === undefined ? 'cli' : 'sweep',
      groupId: run.groupId ?? null,
      ...(run.rerunOf !== undefined && { rerunOf: run.rerunOf }),
    };
    // As the app's journalRequest, with the id given when there is one.
    const runId = run.runId ?? (uuidv7() as RunId);
    const catalog = run.catalog ?? builtinCatalog;
    const effective = checkRequest(request, catalog);
    await journalRun(db, await queuedRun({ ...request, ...effective }, runId, new Date()));
    run.events.started(runId);
    const info = engineInfo(null);
    const status = await driveRun(runId, run.signal, {
      db,
      catalog,
      runtimeFor: (choice) =>
        Promise.resolve(
          new OrtRuntime(
            info,
            () => Promise.resolve(ort),
            OrtRuntime.resolve(choice, info),
            undefined,
            // onnxruntime-node reads and writes a loop's tensors where they lie (session-loop.ts).
            { inPlace: backend === 'cpu' },
          ),
        ),
      producers: threadProducers,
      // What Node says of the machine, in a browser run's fingerprint fields (fingerprint.ts).
      fingerprint: () => nodeFingerprint(backend),
      now: () => Date.now(),
      setTimer: (fire, ms) => {
        const timer = setTimeout(fire, ms);
        return () => clearTimeout(timer);
      },
      onProgress: (node, done, total, perSecond) =>
        run.events.progress(node, done, total, perSecond),
      onLive: (node, port, value) => run.events.live(node, port, value),
      yieldNow: nextTurn,
      ...headlessRecord,
    });
    // The engine knows only the browser's backends; the record says where a `cpu` run really ran.
    if (backend === 'cpu') {
      await updateRun(db, runId, { engine: { backend: 'cpu', adapter: await cpuEngineLabel() } });
      await sayCpu(db, runId);
    }
    const record = await readRunRecord(db, runId);
    if (!record) throw new Error(`run ${runId} was driven but its record is gone`);
    return { status, file: toRunExport(record), record };
  } finally {
    await db.delete();
  }
}
