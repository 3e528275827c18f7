/**
 * The pool view's memory: the latest `pool` event per run and node, kept for
 * the page's life so a run's view still shows how its programs ended after
 * it finished. Read through `usePoolReports`, which subscribes once per
 * engine client.
 */
import { useSyncExternalStore } from 'react';
import type { EngineEvent, PoolEvent } from '../../../workers/protocol';
import { useEngine } from '../engine/EngineContext';

type Subscribe = (listener: (event: EngineEvent) => void) => () => void;

const EMPTY: readonly PoolEvent[] = [];

class PoolReports {
  private readonly byRun = new Map<string, readonly PoolEvent[]>();
  private readonly listeners = new Set<() => void>();

  constructor(subscribe: Subscribe) {
    subscribe((event) => {
      if (event.type === 'pool') this.add(event);
    });
  }

  /** The latest report of each node of a run, in the order the nodes first reported. */
  of(runId: string): readonly PoolEvent[] {
    return this.byRun.get(runId) ?? EMPTY;
  }

  listen(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private add(event: PoolEvent): void {
    const reports = this.byRun.get(event.runId) ?? EMPTY;
    const at = reports.findIndex((r) => r.node === event.node);
    this.byRun.set(
      event.runId,
      at < 0 ? [...reports, event] : reports.map((r, i) => (i === at ? event : r)),
    );
    for (const listener of this.listeners) listener();
  }
}

const stores = new WeakMap<object, PoolReports>();

/** The pool reports of run `runId` (live while it runs). */
export function usePoolReports(runId: string): readonly PoolEvent[] {
  const engine = useEngine();
  let store = stores.get(engine);
  if (store === undefined) {
    store = new PoolReports((listener) => engine.subscribe(listener));
    stores.set(engine, store);
  }
  const reports = store;
  return useSyncExternalStore(
    (listener) => reports.listen(listener),
    () => reports.of(runId),
  );
}
