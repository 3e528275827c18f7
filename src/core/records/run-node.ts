/**
 * The run node record (table `runNodes`): one row per node of a run, its
 * outcome, its time and what it logged. Keyed by `[runId+node]`.
 */
import { z } from '../schema';
import { runIdSchema } from './ids';
import { defineRecord } from './migration';

export const nodeStatuses = [
  'idle',
  'queued',
  'running',
  'ok',
  'error',
  'cancelled',
  'skipped',
  'interrupted',
  'cached',
] as const;
export type NodeStatus = (typeof nodeStatuses)[number];

export const runNodeRowSchema = z.object({
  runId: runIdSchema,
  node: z.string(),
  status: z.enum(nodeStatuses),
  startedAt: z.nullable(z.string()),
  durationMs: z.nullable(z.number()),
  /** Capped at `recordLimits.error` characters. */
  error: z.string(),
  /** Capped at `recordLimits.logs` characters. */
  logs: z.string(),
  /**
   * A `cached` node's outputs came from the node-output cache: the run that
   * computed them, and the node in it. Absent on every other outcome, and on
   * runs from before the cache.
   */
  cachedFrom: z.optional(z.object({ runId: runIdSchema, node: z.string() })),
});
export type RunNodeRow = z.output<typeof runNodeRowSchema>;

/** The row of a node of run `runId` that never started: `status`, no time, nothing logged. */
export function unstartedNodeRow(
  runId: RunNodeRow['runId'],
  node: string,
  status: NodeStatus,
): RunNodeRow {
  return { runId, node, status, startedAt: null, durationMs: null, error: '', logs: '' };
}

export const runNodeRecord = defineRecord({
  name: 'run node',
  schema: runNodeRowSchema,
  migrations: [],
});
