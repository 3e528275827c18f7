/**
 * The run record as IndexedDB keeps it: one row per run, per node outcome,
 * per metric point, per artifact and per wait interval. Each row's type is
 * inferred from its schema in `core/records` (where its versions and
 * migrations live); this module gathers them for the worker that writes them
 * and the UI that reads them, with the caps that keep a record small.
 */
export { flowIdSchema, runIdSchema, type FlowId, type RunId } from '../records/ids';
export {
  finishedRunStatuses,
  runCauses,
  runStatuses,
  type EngineRecord,
  type RunCause,
  type RunRow,
  type RunStatus,
} from '../records/run';
export {
  nodeStatuses,
  unstartedNodeRow,
  type NodeStatus,
  type RunNodeRow,
} from '../records/run-node';
export type { MetricRow } from '../records/metric';
export type { ArtifactRow } from '../records/artifact';
export type { IntervalRow } from '../records/interval';

/** Caps that keep one noisy node from bloating the record. */
export const recordLimits = { error: 2_000, logs: 8_000 } as const;

export function capText(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}
