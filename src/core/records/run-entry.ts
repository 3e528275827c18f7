/**
 * The run list entry record (table `runList`): what the lists of runs show
 * of one run — the runs table, a sweep's progress, the charts' sweep picker,
 * an engine reading the queue — and nothing else: never the flow snapshot, the lease or the fingerprint.
 *
 * A run row holds its whole flow, and IndexedDB cannot read part of a row, so
 * a list that read run rows read every flow on every change. The entry is
 * written beside its run row, in the same transaction, by every write that
 * changes what it shows (`src/db/runs.ts`); a write a list does not show
 * (the lease, the fingerprint) leaves it alone, so it wakes no list. Each
 * write stamps the entry with the next `rev`, so a reader that holds the list
 * reads only the entries changed since the last `rev` it saw. Derived from the
 * run rows; local to a browser, never in a file.
 */
import { z } from '../schema';
import { flowIdSchema, runIdSchema } from './ids';
import { defineRecord } from './migration';
import { runCauses, runStatuses } from './run';

const backend = z.enum(['webgpu', 'wasm']);

export const runEntrySchema = z.object({
  id: runIdSchema,
  flowId: z.nullable(flowIdSchema),
  flow: z.string(),
  groupId: z.nullable(z.string()),
  cause: z.enum(runCauses),
  rerunOf: z.nullable(runIdSchema),
  status: z.enum(runStatuses),
  statusReason: z.string(),
  /** Where it ran (`engine.backend`), or, before an engine claimed it, what it asked for. */
  backend: z.string(),
  /**
   * Devices it cannot run without: what an engine reads of the queue to tell
   * what it can take (entries written before it was kept got it from their
   * run in the upgrade to database version 9).
   */
  requires: z.array(backend),
  createdAt: z.string(),
  startedAt: z.nullable(z.string()),
  finishedAt: z.nullable(z.string()),
  durationMs: z.nullable(z.number()),
  /** The values it ran with, its flow's defaults filled in, the seed apart (`runValues`). */
  params: z.record(z.string(), z.union([z.number(), z.string(), z.boolean()])),
  seed: z.number(),
  result: z.record(z.string(), z.unknown()),
  /** The list's revision when the entry last changed: greater than every entry's before it. */
  rev: z.number(),
});
/** One run as the lists of runs show it. */
export type RunEntry = z.output<typeof runEntrySchema>;

export const runEntryRecord = defineRecord({
  name: 'run list entry',
  schema: runEntrySchema,
  migrations: [],
});
