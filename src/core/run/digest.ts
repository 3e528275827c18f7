/**
 * The params digest: SHA-256 of the canonical JSON (RFC 8785) of
 * `{params, seed}`. Canonical JSON sorts keys, so two runs with the same
 * params written in another order share a digest — that is how a tracker
 * finds "the same experiment" without comparing objects field by field.
 */
import canonicalize from 'canonicalize';
// Picked for small inputs: an audited, dependency-free SHA-256 in plain JavaScript, so core
// hashes a short key without a trip to the platform's crypto and back.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

/**
 * Inputs up to this many bytes are hashed here, in JavaScript; longer ones
 * by the platform (`crypto.subtle`). Each `crypto.subtle.digest` is a trip
 * to another thread and back — tens of µs however short the input — and a
 * run with the cache on hashes a key and every output of every node: for a
 * thousand trivial nodes, thousands of trips. Up to about 2 KiB hashing here
 * costs less CPU than the trip (a thousand 300-byte keys: 3 ms against 18 ms
 * in Node); from about 4 KiB the platform's native hash costs less.
 */
export const HASH_HERE_BYTES = 2 * 1024;

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
