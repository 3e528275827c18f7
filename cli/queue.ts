/**
 * Sweeps fanned out over machines, on BullMQ and Redis: a well-tried
 * distributed job queue (locks, retries, stalled-job recovery) rather than a
 * home-made one. One BullMQ job per trial, its job id the trial's run id,
 * so adding a trial twice adds it once. Beside the queue, in the same Redis
 * under `flowbench:<queue>:`, live what the jobs name and what they leave:
 *
 * - `sweep:<key>`: a sweep's id and its trials' run ids, by the digest of
 *   what the sweep runs (flow, fields, backend), so enqueuing the same sweep
 *   again finds the same run ids and BullMQ adds none of its jobs again;
 * - `file:<digest>`: the bytes of each file a sweep's flow reads, once;
 * - `run:<run id>`: each finished trial's run file. A trial that runs again
 *   (its worker died) writes the same key, so every trial ends with exactly
 *   one record, wherever it ran; `flowbench sweep --wait --out DIR` copies
 *   them out. The file carries a `trial` object (sweep, index, attempts,
 *   worker), which the app's importer ignores;
 * - `live:<run id>`: a pub/sub channel where the worker running a trial
 *   publishes its `LiveMessage`s (thinned as the browser thins live values),
 *   for `flowbench serve` to stream to browsers.
 */
import { Redis } from 'ioredis';
import type { FlowDocument } from '../src/core/flow/document';
import type { RunExport } from '../src/core/run/export';
import type { RunId } from '../src/core/run/record';
import type { CliBackend } from './backend';
import type { GivenFile } from './files';

/** The BullMQ queue's name when `--queue` names none. */
export const DEFAULT_QUEUE = 'flowbench';

/** What a trial's job carries: all a worker needs to run it, files by digest. */
export interface TrialJob {
  sweepId: string;
  index: number;
  runId: RunId;
  flow: FlowDocument;
  params: Record<string, unknown>;
  seed?: number;
  backend: CliBackend;
  files: { name: string; digest: string; mediaType: string }[];
}

/** What a trial's job returns when done (its run file is under `run:<run id>`). */
export interface TrialResult {
  runId: RunId;
  status: RunExport['run']['status'];
  statusReason: string;
  attempts: number;
  worker: string;
}

/** The `trial` object a queued trial's run file carries. */
export interface TrialStamp {
  sweep: string;
  index: number;
  /** How many times a worker started it (2 after a worker died mid-trial). */
  attempts: number;
  /** `host:pid` of the worker that finished it. */
  worker: string;
}

/** A run file with its trial stamp. */
export type QueuedRunFile = RunExport & { trial: TrialStamp };

/** BullMQ's connection options for `url`; a worker's blocking reads need `maxRetriesPerRequest: null`. */
export const connectionOf = (url: string) => ({ url, maxRetriesPerRequest: null });

/** The keys Flowbench keeps beside queue `queue`. */
export function keysOf(queue: string) {
  const base = `flowbench:${queue}`;
  return {
    sweep: (key: string) => `${base}:sweep:${key}`,
    file: (digest: string) => `${base}:file:${digest}`,
    run: (runId: string) => `${base}:run:${runId}`,
    live: (runId: string) => `${base}:live:${runId}`,
  };
}

/** A plain Redis client for the keys beside the queue. */
export const redisClient = (url: string) => new Redis(url, { maxRetriesPerRequest: 3 });

/** Store each file once, by digest. */
export async function storeFiles(
  redis: Redis,
  queue: string,
  files: readonly (GivenFile & { digest: string })[],
): Promise<void> {
  const keys = keysOf(queue);
  for (const file of files) await redis.set(keys.file(file.digest), Buffer.from(file.bytes), 'NX');
}

/** What a worker publishes of a running trial, on its `live:<run id>` channel. */
export type LiveMessage =
  | { event: 'started'; runId: string; attempts: number }
  | { event: 'progress'; node: string; done: number; total: number }
  /** A streaming port's latest value; `step` is its node's steps done by then (null before the first). */
  | { event: 'live'; node: string; port: string; value: number; step: number | null; at: number }
  | { event: 'finished'; status: string };
