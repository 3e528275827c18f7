/**
 * The node-output cache as core sees it: an entry per cache key holding a
 * node's output values and artifacts as bytes, each with its digest, and the
 * run that computed them. Core only asks a `NodeCacheStore` (the database
 * keeps it, `src/db/node-cache.ts`; tests keep one in a Map).
 *
 * Idea: the store hands back bytes as stored and core checks each against its
 * digest before decoding, so an entry whose bytes changed under it (a disk
 * fault, a hand edit) is caught where it is used, dropped and recomputed —
 * never fed on as if it were the value. Trade-off: a hit hashes its bytes
 * once more; that is the price of never trusting storage blindly.
 */
import { decodeValue } from './value-bytes';
import { bytesDigest, rememberDigest } from './value-digest';

/** One output port's value, as bytes. */
export interface CachedOutput {
  readonly port: string;
  readonly digest: string;
  readonly bytes: Uint8Array;
}

/** One artifact the node kept when it ran (a confusion matrix, a model file). */
export interface CachedArtifact {
  readonly name: string;
  readonly mediaType: string;
  readonly digest: string;
  readonly bytes: Uint8Array;
}

/** What the cache keeps of one node's outputs. */
export interface CacheEntry {
  /** The cache key (`cache-key.ts`). */
  readonly key: string;
  /** The run that computed the outputs, and the node in it. */
  readonly runId: string;
  readonly node: string;
  readonly kind: string;
  readonly outputs: readonly CachedOutput[];
  readonly artifacts: readonly CachedArtifact[];
}

/** Where entries are kept. Implementations make a write of a key already kept a no-op. */
export interface NodeCacheStore {
  /** The entry under `key`, marking it used (for eviction); undefined when there is none. */
  read(key: string): Promise<CacheEntry | undefined>;
  /** Resolves once the entry is kept (or refused); a read finds it meanwhile. */
  write(entry: CacheEntry): Promise<void>;
  drop(key: string): Promise<void>;
  /**
   * Where a store holds a run's entries back a while to keep them with the
   * write that ends the run: those of run `runId` not kept yet, handed over
   * (the store no longer keeps them itself); null when it holds none.
   */
  takeHeld?(runId: string): Promise<HeldEntries | null>;
}

/** A run's entries handed over to be kept inside the transaction that ends it. */
export interface HeldEntries {
  /** Keeps the entries; call inside a read-write transaction over the store's table. */
  keep(): Promise<void>;
  /** Tells the entries' writers how it went, once the transaction is over (`error`: it failed). */
  settled(error?: unknown): void;
}

/** What a look-up found. */
export type CacheLookup =
  | { readonly found: 'hit'; readonly entry: CacheEntry; readonly values: Map<string, unknown> }
  | { readonly found: 'miss' }
  /** The entry's bytes no longer match their digest; it has been dropped. */
  | { readonly found: 'corrupt'; readonly problem: string };

/** Look `key` up, check every byte of the entry against its digest, and decode its values. */
export async function lookUp(store: NodeCacheStore, key: string): Promise<CacheLookup> {
  const entry = await store.read(key);
  if (!entry) return { found: 'miss' };
  const problem = await mismatch(entry);
  if (problem) {
    await store.drop(key);
    return { found: 'corrupt', problem };
  }
  const values = new Map<string, unknown>();
  for (const output of entry.outputs) {
    const value = decodeValue(output.bytes);
    rememberDigest(value, output.digest);
    values.set(output.port, value);
  }
  return { found: 'hit', entry, values };
}

/** The first part of the entry whose bytes no longer match their digest; all hashed at once. */
async function mismatch(entry: CacheEntry): Promise<string | null> {
  const parts = [
    ...entry.outputs.map(({ port, digest, bytes }) => ({
      what: `output '${port}'`,
      digest,
      bytes,
    })),
    ...entry.artifacts.map(({ name, digest, bytes }) => ({
      what: `artifact '${name}'`,
      digest,
      bytes,
    })),
  ];
  const found = await Promise.all(parts.map(({ bytes }) => bytesDigest(bytes)));
  const bad = parts.find(({ digest }, i) => found[i] !== digest);
  return bad ? `${bad.what} no longer matches its digest ${bad.digest.slice(0, 19)}…` : null;
}

/** A store in memory: for tests, and for a host with no database. */
export function memoryCacheStore(): NodeCacheStore & { readonly entries: Map<string, CacheEntry> } {
  const entries = new Map<string, CacheEntry>();
  return {
    entries,
    read: (key) => Promise.resolve(entries.get(key)),
    write(entry) {
      if (!entries.has(entry.key)) entries.set(entry.key, entry);
      return Promise.resolve();
    },
    drop(key) {
      entries.delete(key);
      return Promise.resolve();
    },
  };
}
