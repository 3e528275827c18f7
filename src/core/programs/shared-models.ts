/**
 * Resident models shared across the nodes of one run.
 *
 * Idea: each node runs its requests through a runner of its own, but two
 * nodes that use the same model (two evaluations of one trained model build
 * the same inference graph, its weights fed as inputs) need only one
 * resident instance. The shelf keeps every model a runner loaded, by content
 * — the backend choice, the session options and the model bytes — and a
 * later runner of the same run that wants an equal model takes that session
 * and its bytes in the pool instead of loading another. The shelf, not the
 * runners, then owns them: it releases every session and gives back every
 * byte when the run ends (`close`). Trade-off: a shared model stays resident
 * until the run ends, not only while the nodes that use it run.
 */
import type { ModelSession } from '../runtime/tensor-runtime.ts';
import type { DeviceMemoryPool, Hold } from './pool.ts';
import type { ModelDef } from './program.ts';

/** A loaded model: its session and the bytes it holds in the pool. */
export interface LoadedModel {
  readonly session: ModelSession;
  readonly hold: Hold;
}

/** Where runners of one run find and keep the models they share. */
export interface SharedModels {
  /** An equal model loaded earlier in the run, or null. */
  find(def: ModelDef): LoadedModel | null;
  /**
   * The equal model loaded, or being loaded, by another runner; else loads
   * it with `load` and keeps it (the shelf owns it from then on). Null when
   * it does not fit the pool now.
   */
  acquire(
    def: ModelDef,
    pool: DeviceMemoryPool,
    load: () => Promise<LoadedModel | null>,
  ): Promise<LoadedModel | null>;
}

interface Kept {
  readonly bytes: Uint8Array;
  readonly pool: DeviceMemoryPool;
  /** Settles once loaded (null: it did not fit, and the entry is gone). */
  readonly loading: Promise<LoadedModel | null>;
  loaded: LoadedModel | null;
}

/** FNV-1a over the bytes: a cheap key; equal keys are then compared byte by byte. */
function fingerprint(bytes: Uint8Array): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return `${bytes.length}:${(h >>> 0).toString(16)}`;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The models shared by the nodes of one run; see the module comment. */
export class ModelShelf implements SharedModels {
  private readonly kept = new Map<string, Kept[]>();

  private key(def: ModelDef): string {
    const gpu = def.gatheringModel === undefined ? '' : `|${fingerprint(def.gatheringModel)}`;
    return `${def.backend ?? 'auto'}|${JSON.stringify(def.session ?? {})}|${fingerprint(def.model)}${gpu}`;
  }

  private entry(def: ModelDef): Kept | undefined {
    return this.kept.get(this.key(def))?.find((k) => sameBytes(k.bytes, def.model));
  }

  find(def: ModelDef): LoadedModel | null {
    return this.entry(def)?.loaded ?? null;
  }

  async acquire(
    def: ModelDef,
    pool: DeviceMemoryPool,
    load: () => Promise<LoadedModel | null>,
  ): Promise<LoadedModel | null> {
    // Two nodes that start together wait for one load, not two.
    const found = this.entry(def);
    if (found !== undefined) return found.loading;
    const key = this.key(def);
    const forget = () => {
      const rest = (this.kept.get(key) ?? []).filter((k) => k !== kept);
      if (rest.length > 0) this.kept.set(key, rest);
      else this.kept.delete(key);
    };
    const loading = load().then(
      (loaded) => {
        if (loaded === null) forget();
        kept.loaded = loaded;
        return loaded;
      },
      (error: unknown) => {
        forget();
        throw error;
      },
    );
    const kept: Kept = { bytes: def.model, pool, loading, loaded: null };
    this.kept.set(key, [...(this.kept.get(key) ?? []), kept]);
    return loading;
  }

  /** Models kept (loaded or loading). */
  get size(): number {
    let n = 0;
    for (const list of this.kept.values()) n += list.length;
    return n;
  }

  /** Releases every kept session and gives back its bytes. Idempotent. */
  async close(): Promise<void> {
    const all = [...this.kept.values()].flat();
    this.kept.clear();
    const loaded = await Promise.all(all.map((k) => k.loading.catch(() => null)));
    for (const [i, model] of loaded.entries()) if (model !== null) all[i]!.pool.release(model.hold);
    await Promise.allSettled(
      loaded.flatMap((model) => (model === null ? [] : [model.session.release()])),
    );
  }
}
