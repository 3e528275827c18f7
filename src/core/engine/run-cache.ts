/**
 * The executor's side of the node-output cache: before a node runs, its
 * cache key is made and looked up; after it ran, its outputs are stored.
 *
 * Idea: the executor keeps two marks on each node. `volatile`: it or a node
 * above it is a kind that is never cached (the wall clock, outside state), so
 * it runs and nothing of it is stored. `fresh`: the person asked it to be
 * recomputed (`Run from here`, `cache: off`), so it runs, but what it makes
 * is stored for the next run. Both flow downstream along the edges. Trade-off:
 * a store that fails (full, closed) costs the run nothing but the cache —
 * the failure is logged on the node and the run goes on.
 *
 * The run waits for each entry to be made (its bytes are read from the
 * run's values, which end with the run) and handed to the store, not for the
 * store to keep it: a thousand entries took the browser's storage 400 ms and
 * more, and the run's own last writes queued behind them. A store reads back
 * an entry it holds but has not kept yet (`src/db/node-cache.ts`), so a run
 * right after finds it. A store that fails after the run has ended is not
 * told on the node: the entry is simply not there next time.
 */
import type { NodeKind } from '../catalog/kind';
import {
  bytesDigest,
  cacheKey,
  lookUp,
  valueBytes,
  valueDigest,
  type CacheEntry,
  type CacheLookup,
  type NodeCacheStore,
} from '../cache';
import type { NodeBackend, TensorRuntime } from '../runtime/tensor-runtime';
import type { RunEvents } from './events';
import type { KeptArtifact } from './collect-artifacts';

/** The node-output cache a run uses. */
export interface RunCache {
  readonly store: NodeCacheStore;
  /** The run whose outputs are stored, as the entries' source. */
  readonly runId: string;
  /** Nodes to recompute whatever the cache holds (`Run from here`); what is below them too. */
  readonly fresh?: ReadonlySet<string>;
}

/** The per-node `cache` param: `off` recomputes the node on every run. */
export const CACHE_PARAM = 'cache';

/** What the cache needs of a node's state in the executor. */
export interface CachedNodeState {
  readonly id: string;
  readonly kind: NodeKind;
  readonly params: Record<string, unknown>;
  readonly inputs: Record<string, unknown>;
  readonly last: Map<string, unknown>;
  volatile: boolean;
  fresh: boolean;
  /** Artifacts the node kept while it ran, to store with its outputs. */
  artifacts?: KeptArtifact[];
}

/** Whether a kind's outputs may be cached at all. */
export const cacheable = (kind: NodeKind) => kind.cache !== 'never';

export class RunCacheGate {
  /** Each entry being made, until it is handed to the store. */
  private readonly made: Promise<void>[] = [];

  constructor(
    private readonly cache: RunCache,
    private readonly runtime: TensorRuntime,
    private readonly events: RunEvents,
  ) {}

  /** The marks a node starts with, before what is above it adds its own. */
  initialMarks(id: string, kind: NodeKind) {
    return { volatile: !cacheable(kind), fresh: this.cache.fresh?.has(id) === true };
  }

  /**
   * Whether to look the node up before running it: not when it must run
   * anyway, nor when it says `cache: off` (which, unlike `fresh`, is its own:
   * what is below it is looked up by the digests of what it makes).
   */
  shouldLookUp(state: CachedNodeState): boolean {
    return !state.volatile && !state.fresh && state.params[CACHE_PARAM] !== 'off';
  }

  /** The node's key, or null when a value it received has no byte form. */
  async keyOf(state: CachedNodeState): Promise<string | null> {
    // Every input's digest at once: each hash is a trip to the platform's crypto and back.
    const ports = Object.entries(state.inputs);
    const digests = await Promise.all(ports.map(([, value]) => valueDigest(value)));
    const inputs: Record<string, string> = {};
    for (const [i, [port]] of ports.entries()) {
      const digest = digests[i];
      if (digest === null || digest === undefined) return null;
      inputs[port] = digest;
    }
    const { [CACHE_PARAM]: _howToRun, ...params } = state.params;
    const backend =
      state.kind.cache === 'backend'
        ? backendOf(this.runtime, (params.backend ?? 'auto') as NodeBackend)
        : null;
    return cacheKey({
      kind: state.kind.kind,
      version: state.kind.version ?? 1,
      params,
      inputs,
      backend,
    });
  }

  /** Look the node up; a corrupt entry is reported in the node's logs and counts as a miss. */
  async lookUp(state: CachedNodeState): Promise<CacheLookup & { key: string | null }> {
    const key = await this.keyOf(state);
    if (key === null) return { found: 'miss', key };
    const found = await lookUp(this.cache.store, key);
    if (found.found === 'corrupt')
      this.events.log(
        state.id,
        `warning: the cached outputs were damaged (${found.problem}); dropped them and ran the node`,
      );
    return { ...found, key };
  }

  /** Store what the node emitted, under `key` (made now when it was not looked up). */
  store(state: CachedNodeState, key: string | null): void {
    if (state.volatile) return;
    const failed = (error: unknown) =>
      this.events.log(state.id, `warning: its outputs were not cached: ${String(error)}`);
    this.made.push(
      this.entryOf(state, key).then((entry) => {
        if (entry) this.cache.store.write(entry).catch(failed);
      }, failed),
    );
  }

  /** The node's entry, or null when a value of it has no byte form. */
  private async entryOf(state: CachedNodeState, known: string | null): Promise<CacheEntry | null> {
    // The key, the outputs' bytes and the artifacts' digests at once: each hash is a trip to the
    // platform's crypto and back, and the run's end waits for its last node's entry.
    const [key, encoded, artifacts] = await Promise.all([
      known ?? this.keyOf(state),
      Promise.all(
        [...state.last].map(async ([port, value]) => ({ port, bytes: await valueBytes(value) })),
      ),
      Promise.all(
        (state.artifacts ?? []).map(async ({ name, mediaType, bytes }) => ({
          name,
          mediaType,
          bytes,
          digest: await bytesDigest(bytes),
        })),
      ),
    ]);
    if (key === null) return null;
    const outputs = [];
    for (const { port, bytes } of encoded) {
      if (!bytes) return null; // a value with no byte form: nothing of the node can stand in for it
      outputs.push({ port, ...bytes });
    }
    return {
      key,
      runId: this.cache.runId,
      node: state.id,
      kind: state.kind.kind,
      outputs,
      artifacts,
    };
  }

  /** Every entry this run began to make has been made and handed to the store. */
  async settled(): Promise<void> {
    await Promise.all(this.made);
  }
}

function backendOf(runtime: TensorRuntime, choice: NodeBackend): string {
  return runtime.backendFor?.(choice) ?? runtime.info.backend;
}
