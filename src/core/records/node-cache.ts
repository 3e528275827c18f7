/**
 * The node-output cache record (table `nodeCache`, since database version 8):
 * one row per cache key, holding a node's output values and the artifacts it
 * kept, as bytes with their digests, the run that computed them, and when it
 * was last used (for least-recently-used eviction). The values' byte form and
 * the key are core's (`src/core/cache`); this is only how a row is stored.
 */
import { z } from '../schema';
import { bytesSchema } from './bytes';
import { runIdSchema } from './ids';
import { defineRecord } from './migration';

const digested = { digest: z.string(), bytes: bytesSchema };

export const nodeCacheRowSchema = z.object({
  /** `sha256:<hex>` of what went into the node (its kind, version, params, inputs). */
  key: z.string(),
  /** The run that computed the outputs, and the node in it. */
  runId: runIdSchema,
  node: z.string(),
  kind: z.string(),
  outputs: z.array(z.object({ port: z.string(), ...digested })),
  artifacts: z.array(z.object({ name: z.string(), mediaType: z.string(), ...digested })),
  /** Bytes the row holds (outputs and artifacts), counted against the cache's budget. */
  size: z.int().check(z.nonnegative()),
  /** Epoch ms it was stored, and last read. */
  createdAt: z.number(),
  usedAt: z.number(),
});
export type NodeCacheRow = z.output<typeof nodeCacheRowSchema>;

export const nodeCacheRecord = defineRecord({
  name: 'node cache entry',
  schema: nodeCacheRowSchema,
  migrations: [],
});
