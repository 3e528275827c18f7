/**
 * A run's list entry (`records/run-entry.ts`) made from its row: the
 * projection every writer of the runs table applies, and the part of a
 * change to a run row that a list shows. Pure, so the database upgrade that
 * fills the list from existing runs and every later write agree.
 */
import type { RunEntry } from '../records/run-entry';
import { runValues } from './params';
import type { RunRow } from './record';

export type { RunEntry } from '../records/run-entry';

/** The entry of `run`, stamped with `rev`. */
export function runEntryOf(run: RunRow, rev: number): RunEntry {
  const { params, seed } = runValues(run);
  return {
    id: run.id,
    flowId: run.flowId,
    flow: run.flow,
    groupId: run.groupId,
    cause: run.cause,
    rerunOf: run.rerunOf,
    status: run.status,
    statusReason: run.statusReason,
    backend: run.engine?.backend ?? run.backendChoice,
    requires: [...run.requires],
    createdAt: run.createdAt,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    durationMs: run.durationMs,
    params: { ...params },
    seed,
    result: run.result,
    rev,
  };
}

/**
 * What of `changes` to a run row its entry shows, or null when nothing (a
 * lease renewal, a fingerprint, a cancel request): such a write must not
 * touch the entry, so no list wakes for it.
 */
export function entryChanges(changes: Partial<RunRow>): Partial<RunEntry> | null {
  const shown: Partial<RunEntry> = {};
  let any = false;
  for (const key of [
    'status',
    'statusReason',
    'startedAt',
    'finishedAt',
    'durationMs',
    'result',
  ] as const)
    if (key in changes) {
      (shown as Record<string, unknown>)[key] = changes[key];
      any = true;
    }
  if (changes.engine) {
    shown.backend = changes.engine.backend;
    any = true;
  }
  return any ? shown : null;
}
