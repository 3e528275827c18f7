/**
 * The engine worker's entry: it builds the engine (database, device pools,
 * run service) and answers each protocol call with its handler
 * (`engine/handlers.ts`). Everything with substance lives in `engine/`.
 */
/// <reference lib="webworker" />
import { builtinCatalog } from '../src/core/nodes';
import type { AdapterInfo, BackendChoice, EngineInfo } from '../src/core/runtime/tensor-runtime';
import { throttledYield } from '../src/core/engine/executor';
import type { RunId } from '../src/core/run/record';
import { FlowbenchDb } from '../src/db/schema';
import { nodeCacheStore, quotaShareBudget } from '../src/db/node-cache';
import { sweepAbandoned } from './engine/lease';
import { messageTurn } from './engine/message-turn';
import { OrtRuntime } from './engine/ort-runtime';
import { detectAdapter, engineInfo } from './engine/adapter';
import { browserOrtLoader } from './engine/ort-loader';
import { engineFingerprint } from './engine/fingerprint';
import { engineHandlers, runFailed } from './engine/handlers';
import { PendingEndings } from './engine/run-ending';
import { throttlePoolReports } from './engine/pool-events';
import { EnginePools, engineProgramHost } from './engine/programs';
import { settingsBudgetStore } from './engine/programs-budgets';
import { startBrowserBudget } from './engine/browser-budget';
import { throttleProgress } from './engine/progress';
import { browserProducers } from './engine/producer-workers';
import { browserModelWorker } from './engine/model-workers';
import { RunService, runLockName } from './engine/run-service';
import { engineTimings } from './engine/timings';
import {
  answerRequest,
  QUEUE_CHANNEL,
  sendReply,
  type EngineMessage,
  type EngineRequest,
  type QueueNudge,
} from './protocol';

declare const self: DedicatedWorkerGlobalScope;

const db = new FlowbenchDb();
/** How long leases, sweeps and storage-stall alerts wait (timings.ts). */
const timings = engineTimings(db);
let info: Promise<EngineInfo> | null = null;
let adapter: AdapterInfo | null = null;
/** This engine's share of the one budget every tab's engine admits against. */
const shared = startBrowserBudget(db, () => void pools.restore().catch(() => undefined));
/** The engine's device memory pools, shared by every run it drives; budgets set survive a reload. */
const pools = new EnginePools(
  () => adapter,
  shared.announcing(settingsBudgetStore(db)),
  (backend) => shared.budget.ledger(backend),
);
const restored = pools.restore().catch(() => undefined);
const currentInfo = () =>
  (info ??= Promise.all([detectAdapter(), restored]).then(([found]) => {
    adapter = found;
    return engineInfo(found);
  }));
// Training loops' sessions run in the model worker, on threads of its own; the rest here.
const runtimeFor = (choice: BackendChoice, engine: EngineInfo) =>
  Promise.resolve(
    new OrtRuntime(
      engine,
      browserOrtLoader,
      OrtRuntime.resolve(choice, engine),
      browserModelWorker,
    ),
  );
const post = (message: EngineMessage) => self.postMessage(message);

const PROGRESS_EVERY_MS = 100;
const progress = throttleProgress(
  (report) => post({ type: 'progress', ...report }),
  PROGRESS_EVERY_MS,
);

const POOL_EVERY_MS = 200;
const poolReports = throttlePoolReports(
  (report) => post({ type: 'pool', ...report }),
  POOL_EVERY_MS,
);

/** Endings of runs stopped by a storage failure that could not be written yet (run-ending.ts). */
const pendingEndings = new PendingEndings((runId, body) => holdLock(runLockName(runId), body));

/** Where the engines of every tab nudge each other about the queue (run-service.ts). */
const queue = new BroadcastChannel(QUEUE_CHANNEL);

const service = new RunService({
  db,
  catalog: builtinCatalog,
  engineInfo: currentInfo,
  runtimeFor,
  producers: browserProducers,
  nodeCache: nodeCacheStore(db, { budgetBytes: () => quotaShareBudget() }),
  fingerprint: async (choice) => engineFingerprint(await currentInfo(), choice),
  programHost: (runtime, runId) =>
    engineProgramHost(runtime, pools, {
      runId,
      yieldNow: throttledYield(Date.now, messageTurn),
      onTick: (node, backend, { mode, tick, pool, requests }, final) =>
        poolReports({ runId, node, backend, mode, tick, final, pool, requests }),
    }),
  now: () => Date.now(),
  // Read as each run is claimed and driven: the stored setting applies once the engine has read it.
  get leaseMs() {
    return timings.now().leaseMs;
  },
  get storageStallMs() {
    return timings.now().storageStallMs;
  },
  setTimer: (fire, ms) => {
    const timer = setTimeout(fire, ms);
    return () => clearTimeout(timer);
  },
  onProgress: (runId, node, done, total, perSecond) =>
    progress({ runId, node, done, total, ...(perSecond !== undefined && { perSecond }) }),
  onLive: (runId, node, port, value) => post({ type: 'live', runId, node, port, value }),
  onStorageFailure: (runId, reason) => post({ type: 'storage-failure', runId, reason }),
  onStorageStall: (runId, waitedMs) => post({ type: 'storage-stall', runId, waitedMs }),
  onFinished: (runId, status) => post({ type: 'run-finished', runId, status }),
  onFailed: runFailed({ pendingEndings, post }),
  withLock: holdLock,
  tryLock,
  announce: () => queue.postMessage({ type: 'queued' } satisfies QueueNudge),
});

// Another tab's engine left runs queued, or a tab asked to cancel a run. A nudged look
// announces nothing, so engines never nudge each other in circles.
queue.onmessage = (event: MessageEvent<QueueNudge>) => {
  const nudge = event.data;
  if (nudge.type === 'cancel') void service.cancelRequested(nudge.runId).catch(() => undefined);
  else void service.take({ announce: false }).catch(() => undefined);
};

/** Run `body` while holding the Web Lock `name` if nobody holds it; null when somebody does. */
async function tryLock<T>(name: string, body: () => Promise<T>): Promise<{ value: T } | null> {
  let result: { value: T } | null = null;
  await navigator.locks.request(name, { ifAvailable: true }, async (lock) => {
    if (lock !== null) result = { value: await body() };
  });
  return result;
}

/** Run `body` while holding the Web Lock `name`. */
async function holdLock<T>(name: string, body: () => Promise<T>): Promise<T> {
  let result: T | undefined;
  await navigator.locks.request(name, async () => {
    result = await body();
  });
  return result as T;
}

async function isLocked(runId: RunId): Promise<boolean> {
  const { held = [] } = await navigator.locks.query();
  return held.some((lock) => lock.name === runLockName(runId));
}

// On start-up (once the timings are read) and then every sweep period: a run whose engine died
// is marked abandoned (kept endings go first, so such a run ends with its real reason once a
// write fits again), and the queue is looked at, as a safety net for nudges missed and for runs
// left by a tab closed earlier.
const sweep = () =>
  void pendingEndings
    .store(db)
    .then(() => sweepAbandoned(db, Date.now(), isLocked))
    .catch(() => undefined)
    .then(() => service.take({ announce: false }))
    .catch(() => undefined)
    .finally(() => setTimeout(sweep, timings.now().sweepMs));
void timings.read.then(sweep);

const handlers = engineHandlers({
  db,
  catalog: builtinCatalog,
  service,
  pools,
  engineInfo: currentInfo,
  runtimeFor,
  producers: browserProducers,
  now: () => Date.now(),
});

self.onmessage = (event: MessageEvent<EngineRequest>) => {
  void answerRequest(handlers, event.data).then((reply) => sendReply(post, reply));
};
