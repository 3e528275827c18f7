/**
 * `flowbench sweep <flow.json> --param lr=0.01,0.1 --param seed=0..4`: the
 * grid of trials (trials.ts), run here `--parallel` at once (sweep.ts), one
 * run file each in `--out`, all under one sweep id; a line per finished
 * trial (or, with `--json`, every trial's events tagged with its index) and
 * a table at the end. Exit 0 when every trial ended `ok`, 1 when one ended
 * `error`, 2 for bad input (nothing run), 130 on Ctrl+C (running trials end
 * their records `cancelled`; the rest never start).
 */
import { mkdir } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { hasCategory } from '../src/core/errors';
import { builtinCatalog } from '../src/core/nodes';
import {
  badOption,
  errorEvent,
  EXIT,
  parseBackend,
  parseSeed,
  parseThreads,
  runOptions,
} from './args';
import { fileSources, ranFrom, readFlowSource } from './flow-source';
import { describeFrom, type RanFrom } from './report';
import { applyFiles } from './files';
import { enqueueSweep, waitForSweep, type QueuedSweep } from './enqueue';
import { DEFAULT_QUEUE, reachRedis } from './queue';
import { laneThreads } from './backend';
import { runLocalSweep, sweepTable, type TrialEnd } from './sweep';
import { describeTrial, newSweepId, planTrials, sweepFields } from './trials';

/** `n` trials, as a sentence says it ("1 trial", "6 trials"). */
const trialsText = (n: number) => `${n} ${n === 1 ? 'trial' : 'trials'}`;

/** `--parallel`'s value: a positive integer, default the machine's cores. */
function parseParallel(text: string | undefined): number {
  if (text === undefined) return availableParallelism();
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1)
    throw badOption('--parallel', `expects a positive integer, got '${text}'`);
  return n;
}

export async function sweepCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...runOptions,
      parallel: { type: 'string' },
      redis: { type: 'string' },
      queue: { type: 'string', default: DEFAULT_QUEUE },
      wait: { type: 'boolean', default: false },
    },
  });
  const print = (line: string) => process.stdout.write(line + '\n');
  const json = values.json;
  try {
    if (positionals.length !== 1)
      throw badOption('sweep', `expects one flow file, got ${positionals.length}`);
    const flowPath = resolve(positionals[0]!);
    const backend = parseBackend(values.backend);
    const seed = parseSeed(values.seed);
    const parallel = parseParallel(values.parallel);
    const threads = parseThreads(values.threads);
    if (threads !== undefined && values.redis !== undefined)
      throw badOption(
        '--threads',
        "is a local sweep's: a queue's trials run on each worker's own (flowbench worker --threads)",
      );
    // A recorded run's trials run as it ran, but for the grid (each local trial reads it again).
    const { flow: read, recorded } = await readFlowSource(flowPath);
    const fields = sweepFields(read, values.param);
    const baseSeed = seed ?? recorded?.seed;
    if (baseSeed !== undefined && fields.seed === undefined) fields.seed = String(baseSeed);
    // The files are applied here only to check every trial as it will run; each trial reads them again.
    const { flow, files, beside } = await applyFiles(
      read,
      { ...recorded?.params },
      values.file,
      builtinCatalog,
      fileSources(flowPath, recorded),
    );
    const trials = planTrials(flow, fields, builtinCatalog, backend);
    const out = resolve(values.out);
    await mkdir(out, { recursive: true });
    const from = recorded && ranFrom(positionals[0]!, recorded, files);
    if (values.redis !== undefined)
      return await queuedSweep(
        {
          redis: values.redis,
          queue: values.queue,
          flow,
          fields,
          ...(recorded && { base: recorded.params }),
          backend,
          trials,
          files,
        },
        values.wait ? out : null,
        json,
        from,
      );
    const sweepId = newSweepId();
    const at = Math.min(parallel, trials.length);
    if (json)
      print(
        JSON.stringify({
          event: 'sweep',
          sweepId,
          trials: trials.length,
          parallel: at,
          ...(from && { from }),
        }),
      );
    else {
      print(`sweep ${sweepId}: ${trialsText(trials.length)} of '${flow.name}', ${at} at once`);
      if (from) print(`${describeFrom(from)}, but for the grid`);
    }

    const cancel = new AbortController();
    const onInterrupt = () => {
      if (cancel.signal.aborted) process.exit(EXIT.cancelled);
      cancel.abort();
    };
    process.on('SIGINT', onInterrupt);
    process.on('SIGTERM', onInterrupt);
    let done = 0;
    let ends: TrialEnd[];
    try {
      ends = await runLocalSweep({
        flowPath,
        sweepId,
        trials,
        // Trials start in this directory, so relative paths find the same files. Those found
        // beside the flow go as bare --file paths: found once here, not looked for by every trial.
        files: [...values.file, ...beside.map((found) => found.path)],
        backend,
        threads: threads ?? laneThreads(at, availableParallelism()),
        out,
        parallel: at,
        signal: cancel.signal,
        events: {
          trialEvent(trial, event) {
            if (json) print(JSON.stringify({ ...event, trial: trial.index }));
          },
          trialEnded(end) {
            done++;
            if (json) return;
            const reason = end.reason ? `: ${end.reason}` : '';
            print(
              `[${done}/${trials.length}] #${end.trial.index} ${describeTrial(end.trial)} ended ${end.status}${reason}`,
            );
          },
        },
      });
    } finally {
      process.off('SIGINT', onInterrupt);
      process.off('SIGTERM', onInterrupt);
    }
    const count = (status: string) => ends.filter((end) => end.status === status).length;
    const summary = {
      event: 'sweep-finished' as const,
      sweepId,
      ok: count('ok'),
      error: count('error'),
      cancelled: count('cancelled'),
      notRun: trials.length - ends.length,
      out,
    };
    if (json) print(JSON.stringify(summary));
    else {
      process.stdout.write(sweepTable(ends));
      print(
        `sweep ${sweepId}: ${summary.ok} ok, ${summary.error} error, ${summary.cancelled} cancelled` +
          `${summary.notRun > 0 ? `, ${summary.notRun} not run` : ''}; run files in ${out}`,
      );
    }
    if (cancel.signal.aborted) return EXIT.cancelled;
    return summary.error > 0 ? EXIT.error : EXIT.ok;
  } catch (error) {
    const event = errorEvent(error);
    if (json) print(JSON.stringify(event));
    else process.stderr.write(`flowbench: ${event.message}\n`);
    return hasCategory(error, 'bad-input') ? EXIT.badInput : EXIT.error;
  }
}

/**
 * The sweep enqueued on `--redis` for workers to run; with `--wait`
 * (`out` set), followed until every trial has ended, its run files copied
 * into `out` and summed up as a local sweep's are.
 */
async function queuedSweep(
  sweep: QueuedSweep,
  out: string | null,
  json: boolean,
  from: RanFrom | undefined,
): Promise<number> {
  const print = (line: string) => process.stdout.write(line + '\n');
  await reachRedis(sweep.redis);
  const { sweepId, trials, again } = await enqueueSweep(sweep);
  if (json)
    print(
      JSON.stringify({
        event: 'enqueued',
        sweepId,
        trials: trials.length,
        again,
        queue: sweep.queue,
        ...(from && { from }),
      }),
    );
  else {
    print(
      `sweep ${sweepId}: ${trialsText(trials.length)} of '${sweep.flow.name}' ${
        again
          ? `${trials.length === 1 ? 'was' : 'were'} already enqueued (none added again)`
          : 'enqueued'
      } on queue '${sweep.queue}'`,
    );
    if (from) print(`${describeFrom(from)}, but for the grid`);
  }
  if (out === null) return EXIT.ok;
  const cancel = new AbortController();
  const onInterrupt = () => cancel.abort();
  process.on('SIGINT', onInterrupt);
  let done = 0;
  try {
    const ends = await waitForSweep(
      sweep,
      trials,
      out,
      (end) => {
        done++;
        if (json)
          print(
            JSON.stringify({
              event: 'trial',
              trial: end.trial.index,
              runId: end.trial.runId,
              status: end.status,
              attempts: end.run?.trial.attempts ?? null,
            }),
          );
        else
          print(
            `[${done}/${trials.length}] #${end.trial.index} ${describeTrial(end.trial)} ended ${end.status}` +
              (end.run && end.run.trial.attempts > 1
                ? ` after ${end.run.trial.attempts} attempts`
                : '') +
              (end.reason ? `: ${end.reason}` : ''),
          );
      },
      cancel.signal,
    );
    // Ctrl+C stops the waiting only: the trials stay queued and run.
    if (cancel.signal.aborted) return EXIT.cancelled;
    const failed = ends.filter((end) => end.status === 'error' || end.status === 'failed').length;
    if (json) print(JSON.stringify({ event: 'sweep-finished', sweepId, failed, out }));
    else {
      process.stdout.write(
        sweepTable(
          ends.map((end) => ({
            trial: end.trial,
            status: end.status === 'failed' ? 'error' : end.status,
            reason: end.reason,
            file: end.run ? `${out}/${end.trial.runId}.run.json` : null,
            run: end.run,
          })),
        ),
      );
      print(
        `sweep ${sweepId}: ${ends.length - failed} ended, ${failed} error or failed; run files in ${out}`,
      );
    }
    return failed > 0 ? EXIT.error : EXIT.ok;
  } finally {
    process.off('SIGINT', onInterrupt);
  }
}
