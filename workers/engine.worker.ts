/**
 * The engine worker's entry: a switch from protocol calls into the run
 * service. Everything with substance lives in `engine/`.
 */
/// <reference lib="webworker" />
import { builtinCatalog } from '../src/core/nodes';
import type { AdapterInfo, BackendChoice, EngineInfo } from '../src/core/engine/runtime';
import { throttledYield } from '../src/core/engine/executor';
import type { RunId } from '../src/core/run/record';
import { FlowbenchDb } from '../src/db/schema';
import { sweepAbandoned } from './engine/lease';
import { browserOrtLoader, detectAdapter, engineInfo, OrtRuntime } from './engine/ort-runtime';
import { checkRunParity } from './engine/parity-run';
import { throttlePoolReports } from './engine/pool-events';
import { EnginePools, engineProgramHost } from './engine/programs';
import { throttleProgress } from './engine/progress';
import './engine/producer-workers'; // data engines start their producers in workers of their own
import { RunService, runLockName } from './engine/run-service';
import { serializeError, type EngineMessage, type EngineRequest } from './protocol';

declare const self: DedicatedWorkerGlobalScope;

const db = new FlowbenchDb();
let info: Promise<EngineInfo> | null = null;
let adapter: AdapterInfo | null = null;
const currentInfo = () =>
  (info ??= detectAdapter().then((found) => {
    adapter = found;
    return engineInfo(found);
  }));
/** The engine's device memory pools, shared by every run it drives. */
const pools = new EnginePools(() => adapter);
const runtimeFor = (choice: BackendChoice, engine: EngineInfo) =>
  Promise.resolve(new OrtRuntime(engine, browserOrtLoader, OrtRuntime.resolve(choice, engine)));
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

const service = new RunService({
  db,
  catalog: builtinCatalog,
  engineInfo: currentInfo,
  runtimeFor,
  programHost: (runtime, runId) =>
    engineProgramHost(runtime, pools, {
      yieldNow: throttledYield(Date.now),
      onTick: (node, backend, { mode, tick, pool, requests }, final) =>
        poolReports({ runId, node, backend, mode, tick, final, pool, requests }),
    }),
  now: () => Date.now(),
  setTimer: (fire, ms) => {
    const timer = setTimeout(fire, ms);
    return () => clearTimeout(timer);
  },
  onProgress: (runId, node, done, total) => progress({ runId, node, done, total }),
  onLive: (runId, node, port, value) => post({ type: 'live', runId, node, port, value }),
  withLock: holdLock,
});

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

// On start-up and then periodically: a run whose engine died is marked abandoned.
const SWEEP_EVERY_MS = 5_000;
const sweep = () => void sweepAbandoned(db, Date.now(), isLocked).catch(() => undefined);
sweep();
setInterval(sweep, SWEEP_EVERY_MS);

async function handle(request: EngineRequest): Promise<unknown> {
  switch (request.call) {
    case 'info':
      return currentInfo();
    case 'start': {
      const status = await service.start(request.params.runId);
      post({ type: 'run-finished', runId: request.params.runId, status });
      return { status };
    }
    case 'cancel':
      return { cancelled: service.cancel(request.params.runId) };
    case 'checkParity': {
      const engine = await currentInfo();
      return checkRunParity(request.params.runId, {
        db,
        catalog: builtinCatalog,
        pools,
        runtimeFor: (choice) => runtimeFor(choice, engine),
        now: () => Date.now(),
      });
    }
    case 'poolBudgets': {
      await currentInfo();
      const { backend, bytes } = request.params;
      if (backend !== undefined && bytes !== undefined) pools.setBudget(backend, bytes);
      return pools.budgets();
    }
  }
}

self.onmessage = (event: MessageEvent<EngineRequest>) => {
  const request = event.data;
  handle(request).then(
    (result) => post({ type: 'reply', id: request.id, ok: true, result } as EngineMessage),
    (error: unknown) =>
      post({ type: 'reply', id: request.id, ok: false, error: serializeError(error) }),
  );
};
