import { describe, expect, it } from 'vitest';
import { cacheKey, type CacheKeyParts } from './cache-key';
import { lookUp, memoryCacheStore, type CacheEntry } from './node-cache';
import { decodeValue, encodeValue } from './value-bytes';
import { bytesDigest, valueBytes, valueDigest } from './value-digest';

const parts: CacheKeyParts = {
  kind: 'train.classifier',
  version: 1,
  params: { lr: 0.1, steps: 400, seed: 0, optimizer: 'momentum' },
  inputs: { dataset: 'sha256:aa', model: 'sha256:bb' },
  backend: 'wasm',
};

describe('cache keys', () => {
  it('do not depend on the order params or inputs are written in', async () => {
    const reordered: CacheKeyParts = {
      backend: 'wasm',
      inputs: { model: 'sha256:bb', dataset: 'sha256:aa' },
      params: { optimizer: 'momentum', seed: 0, steps: 400, lr: 0.1 },
      version: 1,
      kind: 'train.classifier',
    };
    expect(await cacheKey(reordered)).toBe(await cacheKey(parts));
  });

  it('read a number as its value, however it was written, and tell close numbers apart', async () => {
    const written = JSON.parse(
      '{"lr": 1e-1, "steps": 400.0, "seed": 0, "optimizer": "momentum"}',
    ) as Record<string, unknown>;
    expect(await cacheKey({ ...parts, params: written })).toBe(await cacheKey(parts));
    const near = { ...parts.params, lr: 0.1 + Number.EPSILON };
    expect(await cacheKey({ ...parts, params: near })).not.toBe(await cacheKey(parts));
  });

  it('change when the kind bumps its version, a param, an input or the backend changes', async () => {
    const key = await cacheKey(parts);
    const changed = await Promise.all([
      cacheKey({ ...parts, version: 2 }),
      cacheKey({ ...parts, params: { ...parts.params, lr: 0.3 } }),
      cacheKey({ ...parts, inputs: { ...parts.inputs, dataset: 'sha256:cc' } }),
      cacheKey({ ...parts, backend: 'webgpu' }),
    ]);
    for (const other of changed) expect(other).not.toBe(key);
  });
});

describe('value bytes', () => {
  const dataset = {
    kind: 'dataset',
    name: 'spirals',
    features: new Float32Array([0.5, -1.25, Number.NaN, -0]),
    labels: new Int32Array([1, 0]),
    count: 2,
    featureSize: 2,
    classes: 2,
    featureNames: ['x', 'y'],
    standardisation: undefined,
  };

  it('give a value back as it went in, every float bit included', () => {
    const back = decodeValue(encodeValue(dataset)!) as typeof dataset;
    expect(back.features).toBeInstanceOf(Float32Array);
    expect(new Uint8Array(back.features.buffer)).toEqual(new Uint8Array(dataset.features.buffer));
    expect(back.labels).toEqual(dataset.labels);
    expect(back).toEqual({ ...dataset, standardisation: undefined });
    expect(Object.hasOwn(back, 'standardisation')).toBe(false);
    expect(Object.is(decodeValue(encodeValue(-0)!), -0)).toBe(true);
    expect(decodeValue(encodeValue(Number.POSITIVE_INFINITY)!)).toBe(Number.POSITIVE_INFINITY);
  });

  it("keep a trained model's optimizer state bit for bit: its tensors, its optimizer and its step count", async () => {
    const odd = new Float32Array(
      new Uint32Array([0x7fc00001, 0x80000000, 0x00000001, 0x3f800000]).buffer,
    );
    const model = {
      kind: 'model',
      architecture: 'mlp',
      hidden: [2],
      activation: 'relu',
      weights: { layout: [{ name: 'b0', dims: [4] }], values: { b0: Float32Array.of(1, 2, 3, 4) } },
      optimizerState: {
        optimizer: 'adam',
        tensors: { 'm.b0': odd, 'v.b0': Float32Array.of(1e-30, 3.4e38, 0.5, 0) },
        steps: 1200,
      },
    };
    const back = decodeValue(encodeValue(model)!) as typeof model;
    const { tensors } = back.optimizerState;
    for (const name of ['m.b0', 'v.b0'] as const) {
      expect(tensors[name]).toBeInstanceOf(Float32Array);
      expect(new Uint32Array(tensors[name].buffer)).toEqual(
        new Uint32Array(model.optimizerState.tensors[name].buffer),
      );
    }
    expect(back.optimizerState.optimizer).toBe('adam');
    expect(back.optimizerState.steps).toBe(1200);
    expect(await valueDigest(back)).toBe(await valueDigest(model));
    // Another step count is another value.
    const later = { ...model, optimizerState: { ...model.optimizerState, steps: 1201 } };
    expect(await valueDigest(later)).not.toBe(await valueDigest(model));
  });

  it('are the same for an equal value whatever order its keys were set in', async () => {
    const { labels, features, ...rest } = dataset;
    const other = { labels, ...rest, features };
    expect(await valueDigest(other)).toBe(await valueDigest(dataset));
  });

  it("keep a tensor's element type: int64 bigints exactly, and tensors of equal bytes but other types apart", async () => {
    const big = 2n ** 53n + 1n;
    const ids = {
      kind: 'tensor',
      name: 'ids.npy',
      dtype: 'int64',
      data: BigInt64Array.from([big, -big, 2n ** 63n - 1n]),
      dims: [3],
    };
    const back = decodeValue(encodeValue(ids)!) as typeof ids;
    expect(back.data).toBeInstanceOf(BigInt64Array);
    expect(Array.from(back.data)).toEqual([big, -big, 2n ** 63n - 1n]);
    expect(back.dtype).toBe('int64');
    // The same bytes as bool and as uint8 are two values, so two digests (and two cache keys below).
    const flags = {
      kind: 'tensor',
      name: 'a.npy',
      dtype: 'bool',
      data: Uint8Array.of(1, 0),
      dims: [2],
    };
    const bytes = { ...flags, dtype: 'uint8', data: Uint8Array.of(1, 0) };
    expect(await valueDigest(flags)).not.toBe(await valueDigest(bytes));
    // An int64 and a float64 array of the same numbers too.
    const wide = { ...ids, dtype: 'float64', data: Float64Array.from([1, 2, 3]) };
    const long = { ...ids, dtype: 'int64', data: BigInt64Array.from([1n, 2n, 3n]) };
    expect(await valueDigest(wide)).not.toBe(await valueDigest(long));
  });

  it('do not exist for a value that is not plain data (a live source, a map)', async () => {
    expect(encodeValue({ kind: 'live', source: new Map() })).toBeNull();
    expect(encodeValue({ read: () => 1 })).toBeNull();
    expect(await valueDigest(new Date(0))).toBeNull();
  });
});

describe('looking an entry up', () => {
  const entryOf = async (value: unknown): Promise<CacheEntry> => {
    const { digest, bytes } = (await valueBytes(value))!;
    const matrix = new Uint8Array([1, 2, 3]);
    return {
      key: 'sha256:key',
      runId: 'run-1',
      node: 'train',
      kind: 'train.classifier',
      outputs: [{ port: 'model', digest, bytes }],
      artifacts: [
        {
          name: 'confusion',
          mediaType: 'x',
          digest: await bytesDigest(matrix),
          bytes: matrix,
        },
      ],
    };
  };

  it('gives the values back with the run that computed them', async () => {
    const store = memoryCacheStore();
    await store.write(await entryOf({ kind: 'model', weights: new Float32Array([1, 2]) }));
    const found = await lookUp(store, 'sha256:key');
    expect(found.found).toBe('hit');
    if (found.found !== 'hit') return;
    expect(found.entry.runId).toBe('run-1');
    expect(found.values.get('model')).toEqual({ kind: 'model', weights: new Float32Array([1, 2]) });
  });

  it('drops an entry whose bytes no longer match their digest', async () => {
    const store = memoryCacheStore();
    const entry = await entryOf({ kind: 'model', weights: new Float32Array([1, 2]) });
    const flipped = entry.outputs[0]!.bytes.slice();
    flipped[flipped.length - 1]! ^= 1;
    await store.write({ ...entry, outputs: [{ ...entry.outputs[0]!, bytes: flipped }] });
    const found = await lookUp(store, 'sha256:key');
    expect(found).toEqual({
      found: 'corrupt',
      problem: expect.stringContaining("output 'model' no longer matches its digest") as string,
    });
    expect(store.entries.size).toBe(0);
  });

  it('drops an entry whose artifact bytes changed', async () => {
    const store = memoryCacheStore();
    const entry = await entryOf(0.75);
    const artifact = { ...entry.artifacts[0]!, bytes: new Uint8Array([9, 9, 9]) };
    await store.write({ ...entry, artifacts: [artifact] });
    expect((await lookUp(store, 'sha256:key')).found).toBe('corrupt');
  });
});
