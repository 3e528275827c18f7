/**
 * The flow record (table `flows`): a flow in the library, autosaved as it is
 * edited. Its document is a flow file's content (`flowbench.flow/<n>`), so a
 * change to the document format migrates flow rows and run snapshots too.
 */
import { z } from '../schema';
import { flowDocumentSchema } from '../flow/document';
import { flowIdSchema } from './ids';
import { defineRecord } from './migration';

export const flowRowSchema = z.object({
  id: flowIdSchema,
  name: z.string(),
  doc: flowDocumentSchema,
  /** Bumped on every saved change; a run records the version it ran. */
  version: z.int().check(z.positive()),
  updatedAt: z.string(),
});
/** A flow in the library, autosaved as it is edited. */
export type FlowRow = z.output<typeof flowRowSchema>;

export const flowRecord = defineRecord({ name: 'flow', schema: flowRowSchema, migrations: [] });
