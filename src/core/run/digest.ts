/**
 * The params digest: SHA-256 of the canonical JSON (RFC 8785) of
 * `{params, seed}`. Canonical JSON sorts keys, so two runs with the same
 * params written in another order share a digest — that is how a tracker
 * finds "the same experiment" without comparing objects field by field.
 */
import canonicalize from 'canonicalize';
// Picked for small inputs in Node: an audited, dependency-free SHA-256 in plain JavaScript, so
// the command line hashes a short key without a trip to the platform's crypto and back.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

/** Whether this is Node (the command line, the tests), not a browser. */
const inNode =
  (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node !==
  undefined;

/**
 * Inputs up to this many bytes are hashed here, in JavaScript; longer ones
 * by the platform (`crypto.subtle`). A run with the cache on hashes a key
 * and every output of every node: for a thousand trivial nodes, thousands of
 * hashes. In Node each `crypto.subtle.digest` is a trip to another thread
 * and back — tens of µs however short the input — so up to about 2 KiB
 * hashing here costs less (a thousand 300-byte keys: 3 ms against 18 ms);
 * from about 4 KiB the platform's native hash costs less. In Chromium the
 * platform's digest costs less at every size: 3,000 digests of 0.2–1.5 KB
 * took 13–17 ms there, one after another or all at once, against 25–38 ms
 * here, and a 1,000-node run's engine spent ~90 ms less executing (median
 * of nine runs each) with every digest the platform's. So in a browser
 * everything goes to the platform.
 */
export const HASH_HERE_BYTES = inNode ? 2 * 1024 : 0;

/** The SHA-256 of `bytes` (text as UTF-8), as lower-case hex. Same digest either way it is made. */
export async function sha256Hex(bytes: Uint8Array | string): Promise<string> {
  const data = typeof bytes === 'string' ? new TextEncoder().encode(bytes) : bytes;
  if (data.byteLength <= HASH_HERE_BYTES) return bytesToHex(sha256(data));
  const hash = await crypto.subtle.digest('SHA-256', data as Uint8Array<ArrayBuffer>);
  return bytesToHex(new Uint8Array(hash));
}

export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new Error('value has no JSON form');
  return text;
}

export function paramsDigest(params: Readonly<Record<string, unknown>>, seed: number) {
  return sha256Hex(canonicalJson({ params, seed }));
}
