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
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { FlowbenchError } from '../src/core/errors';
import { messageOf } from '../src/core/programs/errors';
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

/** `url` as a message may show it: its password, if any, left out. */
function shown(url: string): string {
  const parsed = URL.canParse(url) ? new URL(url) : null;
  if (parsed === null || parsed.password === '') return url;
  parsed.password = '***';
  return parsed.href;
}

/** How long a command waits for its Redis to answer before it says it cannot reach it, ms. */
const REACH_MS = 5_000;

/**
 * Checks, before a command builds on it, that a Redis answers at `url`:
 * `bad-option` for what is no Redis URL, `redis-unreachable` naming the URL
 * and why for a Redis that does not answer. Without it, a command on a
 * Redis that was not there went on as if it were, its clients retrying for
 * ever and printing an error at every try.
 */
export async function reachRedis(url: string): Promise<void> {
  const protocol = URL.canParse(url) ? new URL(url).protocol : null;
  if (protocol !== 'redis:' && protocol !== 'rediss:')
    throw new FlowbenchError('bad-option', {
      option: '--redis',
      problem: `expects a Redis URL such as redis://host:6379, got '${url}'`,
    });
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: REACH_MS,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  // Why it failed (refused, no such host) comes as an event; the connect then only says "closed".
  const first: { cause?: Error } = {};
  client.on('error', (error: Error) => (first.cause ??= error));
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    throw new FlowbenchError('redis-unreachable', {
      url: shown(url),
      problem: messageOf(first.cause ?? error),
    });
  } finally {
    client.disconnect();
  }
}

/** How often a command says its Redis is still gone, ms; and when it last said so, by URL. */
const LOST_EVERY_MS = 30_000;
const lastSaid = new Map<string, number>();

/**
 * Says on stderr when a Redis client of a running command (or a BullMQ
 * queue or worker on one) loses its Redis: once for all of a command's
 * clients of that Redis, then every half minute while it stays gone; the
 * clients retry meanwhile. Without a listener, ioredis printed every failed
 * try with its stack. Returns `client`.
 */
export function sayRedisTrouble<
  C extends { on(event: 'error', listener: (error: Error) => void): unknown },
>(client: C, url: string): C {
  client.on('error', (error) => {
    const now = Date.now();
    if (now - (lastSaid.get(url) ?? Number.NEGATIVE_INFINITY) < LOST_EVERY_MS) return;
    lastSaid.set(url, now);
    process.stderr.write(`flowbench: Redis at ${shown(url)}: ${error.message}; retrying\n`);
  });
  return client;
}

/** A plain Redis client for the keys beside the queue; a lost Redis is said (`sayRedisTrouble`). */
export const redisClient = (url: string) =>
  sayRedisTrouble(new Redis(url, { maxRetriesPerRequest: 3 }), url);

/** Queue `name` on the Redis at `url`; a lost Redis is said (`sayRedisTrouble`). */
export const queueOn = (name: string, url: string) =>
  sayRedisTrouble(new Queue<TrialJob, TrialResult>(name, { connection: connectionOf(url) }), url);

/** Store each file once, by digest. */
export async function storeFiles(
  redis: Redis,
  queue: string,
  files: readonly GivenFile[],
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
