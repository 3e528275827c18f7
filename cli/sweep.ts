/**
 * `flowbench sweep` on this machine: every trial is a `flowbench run` child
 * process of its own (`--parallel` at once), so trials use as many cores as
 * they are given and one that crashes takes no other with it; each writes
 * its own run file, recorded under the sweep's id and the run id planned for
 * it. The parent only plans, starts, watches (each child's `--json` events)
 * and sums up. Trade-off: a child's start (loading the engine, about a
 * second) is paid per trial, which is small beside any trial worth sweeping.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { RunExport } from '../src/core/run/export';
import type { RunStatus } from '../src/core/run/record';
import type { CliBackend } from './backend';
import type { RunEvent } from './report';
import { describeTrial, type Trial } from './trials';

const bin = fileURLToPath(new URL('../bin/flowbench.mjs', import.meta.url));

/** How one trial ended: its status (`error` when the child died without a record) and its file. */
export interface TrialEnd {
  trial: Trial;
  status: RunStatus;
  reason: string;
  /** The run file it wrote; null when it wrote none. */
  file: string | null;
  run: RunExport | null;
}

/** What a sweep reports: each trial's events, tagged with the trial. */
export interface SweepEvents {
  trialEvent(trial: Trial, event: RunEvent): void;
  trialEnded(end: TrialEnd): void;
}

export interface LocalSweep {
  flowPath: string;
  sweepId: string;
  trials: readonly Trial[];
  /** `--file` as given, passed on to every trial. */
  files: readonly string[];
  backend: CliBackend;
  out: string;
  parallel: number;
  signal: AbortSignal;
  events: SweepEvents;
}

/** The `flowbench run` arguments of one trial. */
export function trialArgs(
  sweep: Omit<LocalSweep, 'trials' | 'parallel' | 'signal' | 'events'>,
  trial: Trial,
) {
  const args = ['run', sweep.flowPath];
  for (const [name, value] of Object.entries(trial.params))
    args.push('--param', `${name}=${String(value)}`);
  if (trial.seed !== undefined) args.push('--seed', String(trial.seed));
  for (const file of sweep.files) args.push('--file', file);
  args.push('--backend', sweep.backend, '--out', sweep.out, '--json');
  args.push('--group', sweep.sweepId, '--run-id', trial.runId);
  return args;
}

/** Run one trial in a child process; resolves when it has exited. */
async function runTrial(
  sweep: LocalSweep,
  trial: Trial,
  children: Set<ChildProcess>,
): Promise<TrialEnd> {
  // A trial runs under the sweep's own Node flags.
  const child = spawn(process.execPath, [...process.execArgv, bin, ...trialArgs(sweep, trial)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    // A process group of its own: Ctrl+C in a terminal signals the whole foreground group, and a
    // trial that got it twice (from the terminal and passed on by the sweep) would leave at once,
    // unrecorded. The sweep alone passes it on, once.
    detached: true,
  });
  children.add(child);
  // What the child's events said of its end.
  const seen: { finished?: Extract<RunEvent, { event: 'finished' }>; failure: string } = {
    failure: '',
  };
  let pending = '';
  child.stdout.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      let event: RunEvent;
      try {
        event = JSON.parse(line) as RunEvent;
      } catch {
        continue;
      }
      if (event.event === 'finished') seen.finished = event;
      if (event.event === 'error') seen.failure = event.message;
      sweep.events.trialEvent(trial, event);
    }
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on('close', (...ended) => resolve(ended)),
  );
  children.delete(child);
  const ended = seen.finished;
  if (ended) {
    const run = await readFile(ended.file, 'utf8')
      .then((text) => JSON.parse(text) as RunExport)
      .catch(() => null);
    return { trial, status: ended.status, reason: ended.statusReason, file: ended.file, run };
  }
  const why = seen.failure || stderr.trim().split('\n').at(-1) || `exited ${code ?? signal}`;
  return { trial, status: 'error', reason: why, file: null, run: null };
}

/**
 * Run every trial, `parallel` at once, in grid order; resolves with their
 * ends in grid order. On abort no new trial starts and each running one is
 * sent SIGINT, so it ends its record `cancelled` and writes it.
 */
export async function runLocalSweep(sweep: LocalSweep): Promise<TrialEnd[]> {
  const ends: TrialEnd[] = [];
  const children = new Set<ChildProcess>();
  const interrupt = () => {
    for (const child of children) child.kill('SIGINT');
  };
  sweep.signal.addEventListener('abort', interrupt, { once: true });
  let next = 0;
  const lane = async () => {
    while (next < sweep.trials.length && !sweep.signal.aborted) {
      const trial = sweep.trials[next++]!;
      const end = await runTrial(sweep, trial, children);
      ends[trial.index] = end;
      sweep.events.trialEnded(end);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, sweep.parallel) }, lane));
  } finally {
    sweep.signal.removeEventListener('abort', interrupt);
  }
  // Trials never started (Ctrl+C) leave holes.
  return ends.filter(Boolean);
}

const format = (value: unknown): string =>
  typeof value !== 'number'
    ? value === undefined
      ? '—'
      : JSON.stringify(value)
    : Math.abs(value) >= 1e4 || (value !== 0 && Math.abs(value) < 1e-3)
      ? value.toExponential(3)
      : String(Number(value.toPrecision(4)));

/** One row per trial: its params, how it ended, its time, the flow's outputs and its run id. */
export function sweepTable(ends: readonly TrialEnd[]): string {
  const outputs = [...new Set(ends.flatMap((end) => Object.keys(end.run?.run.result ?? {})))];
  const rows = ends.map((end) => [
    String(end.trial.index),
    describeTrial(end.trial),
    end.status,
    end.run?.run.durationMs == null ? '—' : `${(end.run.run.durationMs / 1000).toFixed(2)} s`,
    ...outputs.map((name) => format(end.run?.run.result[name])),
    end.trial.runId,
  ]);
  const table = [['#', 'params', 'status', 'time', ...outputs, 'run'], ...rows];
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  return (
    table
      .map((row) =>
        row
          .map((cell, i) => cell.padEnd(widths[i]!))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}
