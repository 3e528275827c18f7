/**
 * The params digest: SHA-256 of the canonical JSON (RFC 8785) of
 * `{params, seed}`. Canonical JSON sorts keys, so two runs with the same
 * params written in another order share a digest — that is how a tracker
 * finds "the same experiment" without comparing objects field by field.
 */
import canonicalize from 'canonicalize';

export async function sha256Hex(bytes: Uint8Array | string): Promise<string> {
  const data = typeof bytes === 'string' ? new TextEncoder().encode(bytes) : bytes;
  const hash = await crypto.subtle.digest('SHA-256', data as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(hash), (b) => b.toString(16).padStart(2, '0')).join('');
}

export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new Error('value has no JSON form');
  return text;
}

export function paramsDigest(params: Readonly<Record<string, unknown>>, seed: number) {
  return sha256Hex(canonicalJson({ params, seed }));
}
