/**
 * The artifact record (table `artifacts`): a file a node produced (a trained
 * model), kept with its run, keyed by `[runId+name]`. Run files carry the
 * metadata only, so an imported run's artifacts have no bytes.
 */
import { z } from '../schema';
import { runIdSchema } from './ids';
import { bytesSchema } from './bytes';
import { defineRecord } from './migration';

export const artifactRowSchema = z.object({
  runId: runIdSchema,
  name: z.string(),
  node: z.string(),
  /** `sha256:<hex>` of the bytes. */
  digest: z.string(),
  size: z.int().check(z.nonnegative()),
  mediaType: z.string(),
  /** Null for artifacts of imported runs: exports carry metadata only. */
  bytes: z.nullable(bytesSchema),
});
export type ArtifactRow = z.output<typeof artifactRowSchema>;

export const artifactRecord = defineRecord({
  name: 'artifact',
  schema: artifactRowSchema,
  migrations: [],
});
