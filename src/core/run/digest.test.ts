import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { canonicalJson, HASH_HERE_BYTES, paramsDigest, sha256Hex } from './digest';

describe('paramsDigest', () => {
  it('is 64 lowercase hex characters', async () => {
    expect(await paramsDigest({ lr: 0.1 }, 0)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('does not depend on key order', async () => {
    const a = await paramsDigest({ lr: 0.1, steps: 400, nested: 'x' }, 3);
    const b = await paramsDigest({ nested: 'x', steps: 400, lr: 0.1 }, 3);
    expect(a).toBe(b);
  });

  it('changes when a param or the seed changes', async () => {
    const base = await paramsDigest({ lr: 0.1, steps: 400 }, 3);
    expect(await paramsDigest({ lr: 0.2, steps: 400 }, 3)).not.toBe(base);
    expect(await paramsDigest({ lr: 0.1, steps: 401 }, 3)).not.toBe(base);
    expect(await paramsDigest({ lr: 0.1 }, 3)).not.toBe(base);
    expect(await paramsDigest({ lr: 0.1, steps: 400 }, 4)).not.toBe(base);
  });

  it('is the SHA-256 of the canonical JSON of {params, seed}', async () => {
    expect(canonicalJson({ seed: 1, params: { b: 2, a: 1 } })).toBe(
      '{"params":{"a":1,"b":2},"seed":1}',
    );
    expect(await paramsDigest({ b: 2, a: 1 }, 1)).toBe(
      await sha256Hex('{"params":{"a":1,"b":2},"seed":1}'),
    );
  });

  it('hashes a known vector correctly', async () => {
    expect(await sha256Hex('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });
});

describe('sha256Hex', () => {
  it('gives the standard digest whether it hashes in JavaScript or on the platform', async () => {
    // Short inputs are hashed in JavaScript, longer ones by crypto.subtle: both sides of the
    // line, and the line itself, against Node's own hash.
    for (const size of [0, 1, 55, 56, 64, HASH_HERE_BYTES, HASH_HERE_BYTES + 1, 100_000]) {
      const bytes = Uint8Array.from({ length: size }, (_, i) => (i * 31 + 7) % 256);
      expect(await sha256Hex(bytes), `${size} bytes`).toBe(
        createHash('sha256').update(bytes).digest('hex'),
      );
    }
  });
});
