/**
 * `flowbench worker --redis URL`: takes trials from the BullMQ queue and
 * runs each with the same headless runner as `flowbench run`, in this
 * process (`--concurrency` at once; for more cores, start more workers),
 * and stores each finished trial's run file in Redis (queue.ts), and in
 * `--out` when given.
 *
 * Failure is BullMQ's to handle: the worker holds a lock on each trial it
 * runs and renews it while the trial runs; a worker that dies (killed, its
 * machine lost) stops renewing, BullMQ's stalled-job check puts the trial
 * back, and another worker runs it again under the same run id, the record
 * counting both attempts. A run that ends `error` is a finished trial, not
 * a failed job; a job fails (and is retried, up to 3 times) only when the
 * runner itself throws, and a flow that cannot run fails at once. Ctrl+C
 * returns the trials running here to the queue, unrecorded, for another
 * worker, and exits 130; a second Ctrl+C leaves at once (the lock then runs
 * out and the stalled check returns them).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { UnrecoverableError, WaitingError, Worker, type Job } from 'bullmq';
import { hasCategory } from '../src/core/errors';
import { badOption, errorEvent, EXIT } from './args';
import { warmUp } from './backend';
import type { GivenFile } from './files';
import { DEFAULT_LIVE_INTERVAL_MS } from '../workers/engine/live-values';
import { runHeadless } from './headless-run';
import { progressGate } from './progress-gate';
import {
  connectionOf,
  DEFAULT_QUEUE,
  keysOf,
  reachRedis,
  redisClient,
  sayRedisTrouble,
  type LiveMessage,
  type QueuedRunFile,
  type TrialJob,
  type TrialResult,
} from './queue';
import { describeTrial } from './trials';

/** How often a trial's progress is published, at most, per node: the browser's live interval. */
const LIVE_MS = DEFAULT_LIVE_INTERVAL_MS;

/** How long Ctrl+C waits for the trials to be handed back before leaving anyway (their locks then run out). */
const CLOSE_MS = 10_000;

/** A positive integer option, or `bad-option`. */
function positive(option: string, text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1)
    throw badOption(option, `expects a positive integer, got '${text}'`);
  return n;
}

export async function workerCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      redis: { type: 'string' },
      queue: { type: 'string', default: DEFAULT_QUEUE },
      concurrency: { type: 'string', default: '1' },
      out: { type: 'string' },
      'lock-ms': { type: 'string', default: '30000' },
      threads: { type: 'string', default: '1' },
      json: { type: 'boolean', default: false },
    },
  });
  const print = (line: string) => process.stdout.write(line + '\n');
  const json = values.json;
  const say = (event: Record<string, unknown>, text: string) =>
    print(json ? JSON.stringify(event) : text);
  let worker: Worker<TrialJob, TrialResult> | null = null;
  try {
    if (positionals.length > 0) throw badOption('worker', `takes no file, got ${positionals[0]}`);
    if (values.redis === undefined)
      throw badOption('--redis', 'is needed: the Redis URL of the queue, e.g. redis://host:6379');
    const url = values.redis;
    const concurrency = positive('--concurrency', values.concurrency);
    const lockMs = positive('--lock-ms', values['lock-ms']);
    // A worker per core is the way to use a machine's cores (README): onnxruntime's default of a
    // thread per core in each would put N workers' N×N threads on N cores, each waiting on the others.
    const threads = positive('--threads', values.threads);
    const out = values.out === undefined ? null : resolve(values.out);
    await reachRedis(url);
    if (out) await mkdir(out, { recursive: true });
    const me = `${hostname()}:${process.pid}`;
    const redis = redisClient(url);
    const keys = keysOf(values.queue);
    const fileCache = new Map<string, GivenFile>();
    let stopping = false;

    const filesOf = async (job: Job<TrialJob>): Promise<GivenFile[]> =>
      Promise.all(
        job.data.files.map(async ({ name, digest, mediaType }) => {
          const known = fileCache.get(digest);
          if (known) return known;
          const bytes = await redis.getBuffer(keys.file(digest));
          if (!bytes) throw new UnrecoverableError(`file ${name} (${digest}) is not in Redis`);
          const file = { name, bytes: new Uint8Array(bytes), mediaType, digest };
          fileCache.set(digest, file);
          return file;
        }),
      );

    const processor = async (
      job: Job<TrialJob, TrialResult>,
      token?: string,
      signal?: AbortSignal,
    ): Promise<TrialResult> => {
      const trial = job.data;
      const label = `#${trial.index} ${describeTrial(trial)}`;
      const attempts = job.attemptsStarted;
      // Live values for `flowbench serve`; a lost one is only a chart point late, so none is awaited.
      const publish = (message: LiveMessage) =>
        void redis.publish(keys.live(trial.runId), JSON.stringify(message)).catch(() => undefined);
      const steps = new Map<string, number>();
      const published = new Map<string, number>();
      const printable = progressGate();
      let run;
      try {
        run = await runHeadless({
          flow: trial.flow,
          params: trial.params,
          ...(trial.seed !== undefined && { seed: trial.seed }),
          backend: trial.backend,
          threads,
          files: await filesOf(job),
          runId: trial.runId,
          groupId: trial.sweepId,
          signal: signal ?? new AbortController().signal,
          events: {
            started: (runId) => {
              publish({ event: 'started', runId, attempts });
              say(
                { event: 'started', runId, sweepId: trial.sweepId, index: trial.index, attempts },
                `trial ${label} started: run ${runId} (attempt ${attempts})`,
              );
            },
            progress: (node, done, total) => {
              if (json && printable(node, done, total))
                print(JSON.stringify({ event: 'progress', runId: trial.runId, node, done, total }));
              steps.set(node, done);
              // At most one a node per live interval: a loop reports every step.
              const now = Date.now();
              if (done < total && now - (published.get(node) ?? 0) < LIVE_MS) return;
              published.set(node, now);
              publish({ event: 'progress', node, done, total });
            },
            live: (node, port, value) =>
              publish({
                event: 'live',
                node,
                port,
                value,
                step: steps.get(node) ?? null,
                at: Date.now(),
              }),
          },
        });
      } catch (error) {
        // A flow or params that cannot run will not run on a retry either.
        if (hasCategory(error, 'bad-input'))
          throw new UnrecoverableError(errorEvent(error).message);
        throw error;
      }
      if (stopping && signal?.aborted && run.status === 'cancelled') {
        // Back to the queue, unrecorded, for another worker.
        await job.moveToWait(token);
        say(
          { event: 'returned', runId: trial.runId, index: trial.index },
          `trial ${label} returned to the queue`,
        );
        throw new WaitingError();
      }
      const stamped: QueuedRunFile = {
        ...run.file,
        trial: { sweep: trial.sweepId, index: trial.index, attempts, worker: me },
      };
      const text = JSON.stringify(stamped, null, 2);
      await redis.set(keys.run(trial.runId), text);
      publish({ event: 'finished', status: run.status });
      if (out) await writeFile(join(out, `${trial.runId}.run.json`), text + '\n');
      say(
        { event: 'finished', runId: trial.runId, index: trial.index, status: run.status, attempts },
        `trial ${label} ended ${run.status}${run.file.run.statusReason ? `: ${run.file.run.statusReason}` : ''}`,
      );
      return {
        runId: trial.runId,
        status: run.status,
        statusReason: run.file.run.statusReason,
        attempts,
        worker: me,
      };
    };

    await warmUp('wasm');
    worker = sayRedisTrouble(
      new Worker<TrialJob, TrialResult>(values.queue, processor, {
        connection: connectionOf(url),
        concurrency,
        lockDuration: lockMs,
        stalledInterval: lockMs,
        // A trial whose worker died twice is still worth a third try; more is a pattern, not bad luck.
        maxStalledCount: 2,
      }),
      url,
    );
    worker.on('failed', (job, error) => {
      if (!job || error instanceof WaitingError) return;
      say(
        { event: 'failed', runId: job.id, message: error.message, attemptsMade: job.attemptsMade },
        `trial ${job.id} failed (attempt ${job.attemptsMade}): ${error.message}`,
      );
    });
    const running = worker;
    say(
      { event: 'worker', worker: me, queue: values.queue, concurrency },
      `worker ${me} taking trials from queue '${values.queue}', ${concurrency} at once (Ctrl+C returns them)`,
    );
    await running.waitUntilReady();
    await new Promise<void>((done) => {
      const stop = () => {
        if (stopping) process.exit(EXIT.cancelled);
        stopping = true;
        running.cancelAllJobs('the worker was stopped');
        // Closing hands the trials back through Redis; with Redis gone it would wait for ever.
        const given = setTimeout(done, CLOSE_MS);
        void running.close().finally(() => {
          clearTimeout(given);
          done();
        });
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    redis.disconnect();
    return EXIT.cancelled;
  } catch (error) {
    await worker?.close();
    const event = errorEvent(error);
    if (json) print(JSON.stringify(event));
    else process.stderr.write(`flowbench: ${event.message}\n`);
    return hasCategory(error, 'bad-input') ? EXIT.badInput : EXIT.error;
  }
}
