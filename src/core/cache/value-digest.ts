/**
 * Value digests: the SHA-256 of a value's bytes (`value-bytes.ts`), the name
 * a value goes by in a node's cache key.
 *
 * Idea: a digest is computed once per value and remembered beside it (a
 * WeakMap on the object), so a dataset feeding three nodes, or a model read
 * back from the cache with its digest already known, is never hashed again.
 * Trade-off: the memo trusts that values are not mutated after they were
 * emitted — which the engine already requires, since one value may feed many
 * nodes. Primitives are hashed each time (a few bytes).
 */
import { sha256Hex } from '../run/digest';
import { encodeValue } from './value-bytes';

/** A value's bytes and their digest (`sha256:<hex>`); `null` for a value that is not plain data. */
export interface ValueBytes {
  readonly digest: string;
  readonly bytes: Uint8Array;
}

const known = new WeakMap<object, Promise<string | null>>();

/** The digest of a value's bytes, hashed at most once per object; `null` when it has none. */
export function valueDigest(value: unknown): Promise<string | null> {
  if (typeof value !== 'object' || value === null) return digestBytes(encodeValue(value));
  let digest = known.get(value);
  if (!digest) {
    digest = digestBytes(encodeValue(value));
    known.set(value, digest);
  }
  return digest;
}

/**
 * A value's bytes with their digest, remembering the digest for the value at
 * once: a node below that makes its key while the hash runs waits on this
 * one, instead of encoding and hashing the value a second time.
 */
export async function valueBytes(value: unknown): Promise<ValueBytes | null> {
  const bytes = encodeValue(value);
  if (!bytes) return null;
  const memo = typeof value === 'object' && value !== null;
  let digest = memo ? known.get(value) : undefined;
  if (!digest) {
    digest = bytesDigest(bytes);
    if (memo) known.set(value, digest);
  }
  return { digest: (await digest)!, bytes };
}

/** Tell the memo a value's digest (a value decoded from bytes whose digest was checked). */
export function rememberDigest(value: unknown, digest: string): void {
  if (typeof value === 'object' && value !== null) known.set(value, Promise.resolve(digest));
}

/** `sha256:<hex>` of some bytes. */
export async function bytesDigest(bytes: Uint8Array): Promise<string> {
  return `sha256:${await sha256Hex(bytes)}`;
}

async function digestBytes(bytes: Uint8Array | null): Promise<string | null> {
  return bytes ? bytesDigest(bytes) : null;
}
