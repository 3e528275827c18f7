/**
 * The engine's answer to each protocol call, as one handler map. Its type
 * (`EngineHandlers`) comes from the protocol's map of calls, so a call added
 * there does not compile until it has a handler here, and each handler takes
 * and resolves with exactly what the UI's `call()` sends and expects. The
 * handlers only route: the work is in the run service and its neighbours,
 * which the entry file builds and passes in.
 */
import type { Catalog } from '../../src/core/catalog/catalog';
import type { EngineInfo } from '../../src/core/runtime/tensor-runtime';
import type { RunId } from '../../src/core/run/record';
import type { FlowbenchDb } from '../../src/db/schema';
import { serializeError } from '../../src/core/errors';
import type { EngineEvent, EngineHandlers } from '../protocol';
import { checkRunParity } from './parity-run';
import type { EnginePools } from './programs';
import { RunEndingError, type PendingEndings } from './run-ending';
import { importFiles } from './run-import';
import { exportRunBundle } from './run-bundle';
import { describeTable } from './table-preview';
import { describeArray, describeModel } from './model-card';
import { findStoredFile, storeFile } from '../../src/db/files';
import type { RunService, RunServiceOptions } from './run-service';

/** What the handlers route to. */
export interface EngineHandlerDeps {
  readonly db: FlowbenchDb;
  readonly catalog: Catalog;
  readonly service: RunService;
  readonly pools: EnginePools;
  /** The engine's backend and adapter, detected once. */
  readonly engineInfo: () => Promise<EngineInfo>;
  readonly runtimeFor: RunServiceOptions['runtimeFor'];
  /** Where the parity check's data engines start their producers (as the run service's do). */
  readonly producers: RunServiceOptions['producers'];
  readonly now: () => number;
}

/**
 * What the engine does when driving a run fails outside its record: an
 * ending that could not be stored is kept to store later (run-ending.ts), and
 * the page is told.
 */
export function runFailed(deps: {
  /** Endings of runs stopped by a storage failure, kept to write later (run-ending.ts). */
  readonly pendingEndings: Pick<PendingEndings, 'keep'>;
  readonly post: (event: EngineEvent) => void;
}): (runId: RunId, error: unknown) => void {
  return (runId, error) => {
    if (error instanceof RunEndingError) {
      deps.pendingEndings.keep(runId, error.ending);
      deps.post({ type: 'run-finished', runId, status: error.ending.status });
    }
    deps.post({ type: 'run-failed', runId, error: serializeError(error) });
  };
}

/** The engine's handler for every call of the protocol. */
export function engineHandlers(deps: EngineHandlerDeps): EngineHandlers {
  const { db, catalog, service, pools, engineInfo, runtimeFor, producers, now } = deps;
  return {
    info: () => engineInfo(),
    take: async () => ({ taken: await service.take({ announce: true }) }),
    checkParity: async ({ runId }) => {
      const engine = await engineInfo();
      return checkRunParity(runId, {
        db,
        catalog,
        pools,
        runtimeFor: (choice) => runtimeFor(choice, engine),
        producers,
        now,
      });
    },
    poolBudgets: async ({ backend, bytes }) => {
      await engineInfo(); // the pools' default budgets depend on the adapter
      if (backend !== undefined && bytes !== undefined) await pools.chooseBudget(backend, bytes);
      return pools.budgets();
    },
    importFiles: ({ files }) => importFiles(db, files),
    exportRunBundle: ({ runId }) => exportRunBundle(db, catalog, runId),
    describeTable: ({ digest, header }) => describeTable(db, digest, header),
    describeModel: ({ digest }) => describeModel(db, digest),
    describeArray: ({ digest, array }) => describeArray(db, digest, array),
    storeFile: async ({ file }) => ({
      digest: await storeFile(
        db,
        file.name,
        new Uint8Array(await file.arrayBuffer()),
        file.type || 'application/octet-stream',
      ),
    }),
    describeFile: async ({ digest }) => {
      const file = await findStoredFile(db, digest);
      return file ? { name: file.name, size: file.size } : null;
    },
  };
}
