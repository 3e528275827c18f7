/**
 * A run request, and the record it becomes when journaled: everything that
 * identifies the run (snapshot, params, seed, digest, group, cause, device
 * labels) is fixed before anything executes, with status `queued`.
 */
import type { BackendChoice } from '../runtime/tensor-runtime';
import type { FlowDocument } from '../flow/document';
import { requiredDevices } from './devices';
import { paramsDigest } from './digest';
import type { FlowId, RunCause, RunId, RunRow } from './record';
import type { RunCacheChoice } from '../records/run';

/**
 * What a person (or a sweep, or Re-run) asks to run. Params and seed may
 * leave inputs unset, for the flow's defaults: the journaled record holds the
 * effective values (see `checkRequest`).
 */
export interface RunRequest {
  flowId: FlowId | null;
  flowVersion: number;
  flow: FlowDocument;
  params: Record<string, unknown>;
  /** The run's seed; absent, the `seed` input's default (or 0 without one). */
  seed?: number;
  backendChoice: BackendChoice;
  cause: RunCause;
  groupId?: string | null;
  rerunOf?: RunId | null;
  /** How it uses the node-output cache (`Use cache`, `Run to here`, `Run from here`); absent: on. */
  cache?: RunCacheChoice;
}

/**
 * The `queued` record of a checked request, with the params and seed as
 * given: pass the effective ones `checkRequest` returns.
 */
export async function queuedRun(request: RunRequest, id: RunId, now: Date): Promise<RunRow> {
  const { flow } = request;
  const seed = request.seed ?? 0;
  const params = request.params as RunRow['params'];
  return {
    id,
    flowId: request.flowId,
    flow: flow.name,
    flowVersion: request.flowVersion,
    flowSnapshot: structuredClone(flow),
    params,
    seed,
    paramsDigest: await paramsDigest(params, seed),
    groupId: request.groupId ?? null,
    cause: request.cause,
    backendChoice: request.backendChoice,
    requires: requiredDevices(flow, request.backendChoice),
    rerunOf: request.rerunOf ?? null,
    status: 'queued',
    statusReason: '',
    createdAt: now.toISOString(),
    startedAt: null,
    finishedAt: null,
    durationMs: null,
    engine: null,
    result: {},
    leaseUntil: null,
    cancelRequestedAt: null,
    ...(request.cache && { cache: request.cache }),
  };
}
