/** The engine client in React, and the actions that go through it. */
import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { isFlowbenchError, reviveError, runStorageFailures } from '../../core/errors';
import { builtinCatalog } from '../../core/nodes';
import { StepRate } from '../../core/programs/step-rate';
import type { RunId } from '../../core/run/record';
import type { RunRequest } from '../../core/run/request';
import { journalRequests } from '../../db/submit';
import { db } from '../db';
import { useEditorStore } from '../store/context';
import { startEngine, type EngineClient, type EventOrigin } from './client';
import { askPersistenceOnFirstRun } from '../runs/persistence';

const EngineContext = createContext<EngineClient | null>(null);

export function EngineProvider({ children }: { children: ReactNode }) {
  const store = useEditorStore();
  const [client] = useState(() => startEngine((error) => store.getState().alertError(error)));
  // The worker thins progress and live values to a few a second (workers/engine/progress.ts,
  // live-values.ts); steps per second come from those reports, over a window, per node.
  useEffect(() => {
    const rates = new Map<string, StepRate>();
    /** The alert each run's stalled storage raised, taken down when its writes answer. */
    const stalls = new Map<RunId, number>();
    // Events of every tab's engine: a run shows its progress and failures in every tab.
    return client.subscribe((event, from) => {
      if (event.type === 'progress') {
        const key = `${event.runId}/${event.node}`;
        let rate = rates.get(key);
        if (rate === undefined) rates.set(key, (rate = new StepRate()));
        // The rate over the last window once two reports span one; until then the node's own.
        const perSecond = rate.report(event.done, performance.now()) ?? event.perSecond ?? null;
        if (event.done >= event.total) rates.delete(key);
        store.getState().setProgress(event.runId, event.node, {
          done: event.done,
          total: event.total,
          ...(perSecond !== null && { perSecond }),
        });
      }
      if (event.type === 'live')
        store.getState().setLive(event.runId, `${event.node}.${event.port}`, event.value);
      if (event.type === 'storage-stall') {
        const shown = stalls.get(event.runId);
        if (shown !== undefined) store.getState().dismissAlert(shown);
        stalls.delete(event.runId);
        if (event.waitedMs !== null)
          stalls.set(
            event.runId,
            store.getState().alert(storageStallMessage(event.runId, event.waitedMs, from)),
          );
      }
      if (event.type === 'run-failed') {
        const error = reviveError(event.error);
        // A storage failure was reported as it happened (the 'storage-failure' event).
        if (!isFlowbenchError(error, ...runStorageFailures))
          store.getState().alertError(error, `Run ${event.runId} stopped: `);
      }
      if (event.type === 'storage-failure') {
        store.getState().setStopping(event.runId, event.reason);
        store.getState().alert(`Run ${event.runId} stopped: ${event.reason}`);
      }
    });
  }, [client, store]);
  return <EngineContext.Provider value={client}>{children}</EngineContext.Provider>;
}

function storageStallMessage(runId: RunId, waitedMs: number, from: EventOrigin): string {
  const kept =
    from === 'this-tab'
      ? 'closing this tab now would lose it'
      : 'closing the tab that runs it now would lose it';
  return `Run ${runId}: the browser's storage (IndexedDB) has not answered its writes for ${Math.round(waitedMs / 1000)} s; another tab may be holding it, or the browser has stalled. What the run records is kept in memory until storage answers; ${kept}.`;
}

export function useEngine(): EngineClient {
  const client = useContext(EngineContext);
  if (!client) throw new Error('useEngine must be used inside <EngineProvider>');
  return client;
}

/** What the engine runs on: the backend `auto` picks and the WebGPU adapter. */
export function useEngineInfo() {
  const engine = useEngine();
  return useQuery({
    queryKey: ['engine-info'],
    queryFn: () => engine.call('info', {}),
    staleTime: Infinity,
  });
}

/**
 * Journal several runs as one submission: all are checked first, so a bad
 * combination refuses the whole sweep and nothing is journaled.
 */
export function useSubmitRuns() {
  const engine = useEngine();
  const store = useEditorStore();
  return async (requests: readonly RunRequest[]): Promise<RunId[]> => {
    let ids: RunId[] = [];
    try {
      ids = await journalRequests(db, requests, builtinCatalog);
    } catch (error) {
      store.getState().alertError(error);
      return ids;
    }
    if (ids[0]) store.getState().selectRun(ids[0]);
    // Runs are worth keeping: the first one asks the browser not to clear them.
    askPersistenceOnFirstRun();
    // Any tab's engine may run them: this tab's looks first, and tells the others what it leaves.
    engine.call('take', {}).catch((error: unknown) => store.getState().alertError(error));
    return ids;
  };
}

/** Journal a run, select it, and start it; errors become alerts. */
export function useSubmitRun() {
  const submitMany = useSubmitRuns();
  return async (request: RunRequest): Promise<RunId | null> =>
    (await submitMany([request]))[0] ?? null;
}
