/**
 * A node's cache key: what went into one node's outputs, named by one digest.
 *
 * Idea: the SHA-256 of the canonical JSON (RFC 8785: keys sorted, numbers in
 * their shortest round-trip form) of the node's kind, the kind's
 * implementation version, its params after resolution (the seed a node
 * receives is one of them), the digests of its input values by port, and the
 * backend when the kind says its results depend on it. Two nodes with the
 * same key compute the same outputs, so one's outputs stand for the other's.
 * Trade-off: a param written `0.1` or `1e-1`, or params in another order, is
 * one key — but a kind that changes what it computes must bump its version,
 * or old entries would stand for new results.
 */
import { canonicalJson, sha256Hex } from '../run/digest';

/** Everything a node's outputs depend on. */
export interface CacheKeyParts {
  readonly kind: string;
  readonly version: number;
  /** Params after resolution, less those that say how to run, not what (`cache`). */
  readonly params: Readonly<Record<string, unknown>>;
  /** The digest of each wired input's value, by port. */
  readonly inputs: Readonly<Record<string, string>>;
  /** The backend the node runs on, for a kind whose results depend on it; else null. */
  readonly backend: string | null;
}

/** The cache key (`sha256:<hex>`) of a node's outputs. */
export async function cacheKey(parts: CacheKeyParts): Promise<string> {
  return `sha256:${await sha256Hex(canonicalJson(parts))}`;
}
