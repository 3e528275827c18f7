/**
 * `flowbench sweep … --redis URL`: the sweep's trials enqueued on BullMQ for
 * `flowbench worker`s anywhere to take (queue.ts says what lives where), and
 * with `--wait`, followed to their ends. Idempotent: the same sweep (flow,
 * fields, backend, files) enqueued again gets the run ids it got the first
 * time, and BullMQ adds no job whose id it already holds, so no trial runs
 * twice. Trade-off: to run the very same sweep anew, change something in it
 * (or use another `--queue`).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FlowDocument } from '../src/core/flow/document';
import { canonicalJson, sha256Hex } from '../src/core/run/digest';
import type { RunId } from '../src/core/run/record';
import type { CliBackend } from './backend';
import type { GivenFile } from './files';
import {
  keysOf,
  queueOn,
  redisClient,
  storeFiles,
  type QueuedRunFile,
  type TrialResult,
} from './queue';
import { newSweepId, type Trial } from './trials';

export interface QueuedSweep {
  redis: string;
  queue: string;
  flow: FlowDocument;
  /** The `--param` fields, as typed: with the flow, what makes two sweeps the same. */
  fields: Record<string, string>;
  /** Params every trial runs with where its fields set none (a run bundle's run's). */
  base?: Readonly<Record<string, unknown>>;
  backend: CliBackend;
  trials: readonly Trial[];
  files: readonly GivenFile[];
}

/** How many times a trial that failed (not one whose run ended `error`: a crash) is tried. */
const ATTEMPTS = 3;

/**
 * Enqueue every trial; resolves with the sweep's id, its trials (with the
 * run ids they are queued under) and whether it was enqueued before.
 */
export async function enqueueSweep(
  sweep: QueuedSweep,
): Promise<{ sweepId: string; trials: Trial[]; again: boolean }> {
  const redis = redisClient(sweep.redis);
  const queue = queueOn(sweep.queue, sweep.redis);
  try {
    const key = await sha256Hex(
      canonicalJson({
        flow: sweep.flow,
        fields: sweep.fields,
        ...(sweep.base && { base: sweep.base }),
        backend: sweep.backend,
        files: sweep.files.map((file) => file.digest),
      }),
    );
    const planned = {
      sweepId: newSweepId(),
      runIds: sweep.trials.map((trial) => trial.runId),
    };
    const keys = keysOf(sweep.queue);
    const fresh = (await redis.set(keys.sweep(key), JSON.stringify(planned), 'NX')) === 'OK';
    const stored = JSON.parse((await redis.get(keys.sweep(key))) ?? 'null') as
      typeof planned | null;
    if (!stored) throw new Error(`the sweep's key ${keys.sweep(key)} vanished from Redis`);
    const trials = sweep.trials.map((trial, i) => ({ ...trial, runId: stored.runIds[i]! }));
    await storeFiles(redis, sweep.queue, sweep.files);
    await queue.addBulk(
      trials.map((trial) => ({
        name: 'trial',
        data: {
          sweepId: stored.sweepId,
          index: trial.index,
          runId: trial.runId,
          flow: sweep.flow,
          params: { ...sweep.base, ...trial.params },
          ...(trial.seed !== undefined && { seed: trial.seed }),
          backend: sweep.backend,
          files: sweep.files.map(({ name, digest, mediaType }) => ({ name, digest, mediaType })),
        },
        opts: {
          jobId: trial.runId,
          attempts: ATTEMPTS,
          backoff: { type: 'exponential', delay: 1000 },
        },
      })),
    );
    return { sweepId: stored.sweepId, trials, again: !fresh };
  } finally {
    await queue.close();
    redis.disconnect();
  }
}

/** How a queued trial ended. */
export interface QueuedEnd {
  trial: Trial;
  status: TrialResult['status'] | 'failed';
  reason: string;
  run: QueuedRunFile | null;
}

/**
 * Follow the trials until each has ended (its job completed or failed for
 * good), calling `ended` as each does; with `out`, each run file is copied
 * there from Redis. Resolves with their ends in grid order.
 */
export async function waitForSweep(
  where: { redis: string; queue: string },
  trials: readonly Trial[],
  out: string | null,
  ended: (end: QueuedEnd) => void,
  signal: AbortSignal,
): Promise<QueuedEnd[]> {
  const redis = redisClient(where.redis);
  const queue = queueOn(where.queue, where.redis);
  const keys = keysOf(where.queue);
  const ends = new Map<RunId, QueuedEnd>();
  try {
    while (ends.size < trials.length && !signal.aborted) {
      for (const trial of trials) {
        if (ends.has(trial.runId)) continue;
        const job = await queue.getJob(trial.runId);
        const state = job ? await job.getState() : 'unknown';
        if (state !== 'completed' && state !== 'failed') continue;
        const text = await redis.get(keys.run(trial.runId));
        const run = text === null ? null : (JSON.parse(text) as QueuedRunFile);
        if (text !== null && out)
          await writeFile(join(out, `${trial.runId}.run.json`), `${text}\n`);
        const end: QueuedEnd =
          state === 'completed' && run
            ? { trial, status: run.run.status, reason: run.run.statusReason, run }
            : { trial, status: 'failed', reason: job?.failedReason ?? 'failed', run };
        ends.set(trial.runId, end);
        ended(end);
      }
      if (ends.size < trials.length) await new Promise((resolve) => setTimeout(resolve, 300));
    }
    return trials.flatMap((trial) => ends.get(trial.runId) ?? []);
  } finally {
    await queue.close();
    redis.disconnect();
  }
}
