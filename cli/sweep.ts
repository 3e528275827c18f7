/**
 * `flowbench sweep` on this machine: `--parallel` lanes, each a trial process
 * (`flowbench trial-host`, trial-host.ts) started once and handed the
 * sweep's trials one after another over its stdin, each run exactly as
 * `flowbench run --json` runs it, writing its own run file under the sweep's
 * id and the run id planned for it. The parent only plans, starts, watches
 * (the trials' events) and sums up. A process per lane, not per trial: a
 * trial's own start (loading the engine, compiling onnxruntime's WASM, V8
 * optimising it as it runs) cost several times a short trial's training, so
 * it is paid once per lane and later trials run on hot code. Trade-off: a
 * lane's trials share a process; one that crashes it ends `error` alone
 * (the lane's next trial starts a fresh process), but a trial that leaks
 * leaks into its lane's next.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { RunExport } from '../src/core/run/export';
import type { RunStatus } from '../src/core/run/record';
import type { CliBackend } from './backend';
import { formatValue, type RunEvent } from './report';
import type { HostMessage, HostRequest } from './trial-host';
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
  /** `--file` as given (and the files found beside the flow), passed on to every trial. */
  files: readonly string[];
  backend: CliBackend;
  /** onnxruntime-node's threads per session in every trial (`--backend cpu`; see backend.ts's `laneThreads`). */
  threads: number;
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
  args.push('--backend', sweep.backend, '--threads', String(sweep.threads));
  args.push('--out', sweep.out, '--json');
  args.push('--group', sweep.sweepId, '--run-id', trial.runId);
  return args;
}

/**
 * The V8 heap a lane's process starts with. A train step hands back its
 * weights in fresh buffers every step (800 KB for the bench's MLP), and in a
 * process that had run a trial before, V8 set its old generation's limit so
 * close to what was live that it marked the heap every 50 to 80 ms through
 * the next trial: five 1,500-step trainings of that MLP one after another in
 * one process, one thread, took 1.53, 1.55, 1.70, 1.71 and 1.76 ms a step.
 * Started at 128 MB, the heap's limit stays clear of it: 1.53 to 1.55 each.
 */
const LANE_HEAP = '--initial-old-space-size=128';

/** One lane's trial process: a `flowbench trial-host` that runs the lane's trials one after another. */
class TrialProcess {
  private readonly child: ChildProcess;
  private pending = '';
  /** The last lines of stderr, for the reason of a trial whose process died. */
  private stderr = '';
  /** The running trial's listener, if one is running. */
  private current: ((message: HostMessage) => void) | null = null;
  /** Resolves once the process has exited, with its code or signal. */
  readonly exited: Promise<string>;
  dead = false;

  constructor(backend: CliBackend) {
    // Trials run under the sweep's own Node flags and LANE_HEAP; the host warms the sweep's backend
    // as it starts.
    this.child = spawn(
      process.execPath,
      [...process.execArgv, LANE_HEAP, bin, 'trial-host', '--backend', backend],
      {
        stdio: ['pipe', 'pipe', 'pipe'],
        // A process group of its own: Ctrl+C in a terminal signals the whole foreground group, and a
        // trial that got it twice (from the terminal and passed on by the sweep) would leave at once,
        // unrecorded. The sweep alone passes it on, once.
        detached: true,
      },
    );
    this.child.stdout!.on('data', (chunk: Buffer) => this.read(chunk.toString()));
    this.child.stderr!.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString()).slice(-4096);
    });
    // A process that has died refuses its stdin; its trial's end says why.
    this.child.stdin!.on('error', () => undefined);
    this.exited = new Promise((resolve) =>
      this.child.on('close', (code, signal) => {
        this.dead = true;
        resolve(signal ?? `code ${code}`);
      }),
    );
  }

  private read(text: string) {
    this.pending += text;
    const lines = this.pending.split('\n');
    this.pending = lines.pop()!;
    for (const line of lines) {
      let message: HostMessage;
      try {
        message = JSON.parse(line) as HostMessage;
      } catch {
        continue;
      }
      this.current?.(message);
    }
  }

  /**
   * Run `args` (a `flowbench run`'s), passing its events to `onEvent`;
   * resolves with what they said of its end, or why the process died.
   */
  run(
    args: string[],
    onEvent: (event: RunEvent) => void,
  ): Promise<{ finished?: FinishedEvent; failure: string; died?: string }> {
    const seen: { finished?: FinishedEvent; failure: string; died?: string } = { failure: '' };
    this.stderr = '';
    return new Promise((resolve) => {
      this.current = (message) => {
        if (message.event === 'finished') seen.finished = message;
        if (message.event === 'error') seen.failure = message.message;
        if (message.event === 'trial-exit') {
          this.current = null;
          resolve(seen);
        } else onEvent(message);
      };
      void this.exited.then((how) => {
        if (!this.current) return;
        this.current = null;
        const said = this.stderr.trim().split('\n').at(-1);
        seen.died = `its trial process died (${how})${said ? `: ${said}` : ''}`;
        resolve(seen);
      });
      // `trialArgs` names the command, as a `flowbench run` of the trial's own would take it.
      const request: HostRequest = { run: args[0] === 'run' ? args.slice(1) : args };
      this.child.stdin!.write(JSON.stringify(request) + '\n');
    });
  }

  /** Ctrl+C for the running trial: it ends its record `cancelled`. */
  interrupt() {
    if (this.current && !this.dead) this.child.kill('SIGINT');
  }

  /**
   * No more trials: end the process. Its trials' files are written and their
   * ends read, so nothing is left to flush; left to exit by itself, Node
   * would first wait for V8's background optimising compiles of onnxruntime's
   * WASM (seconds on a busy machine) for code that will never run again.
   */
  close(): Promise<string> {
    this.child.stdin!.end();
    if (!this.dead) this.child.kill('SIGTERM');
    return this.exited;
  }
}

type FinishedEvent = Extract<RunEvent, { event: 'finished' }>;

/** Run one trial in `host`; resolves when it has ended. */
async function runTrial(sweep: LocalSweep, trial: Trial, host: TrialProcess): Promise<TrialEnd> {
  const seen = await host.run(trialArgs(sweep, trial), (event) =>
    sweep.events.trialEvent(trial, event),
  );
  const ended = seen.finished;
  if (ended) {
    const run = await readFile(ended.file, 'utf8')
      .then((text) => JSON.parse(text) as RunExport)
      .catch(() => null);
    return { trial, status: ended.status, reason: ended.statusReason, file: ended.file, run };
  }
  const why = seen.failure || seen.died || 'it ended without a record';
  return { trial, status: 'error', reason: why, file: null, run: null };
}

/**
 * Run every trial, `parallel` at once, in grid order; resolves with their
 * ends in grid order. Each lane starts its trial process once and runs its
 * trials in it one after another; a process that dies ends its trial
 * `error` and the lane's next trial starts a fresh one. On abort no new
 * trial starts and each running one is sent SIGINT, so it ends its record
 * `cancelled` and writes it.
 */
export async function runLocalSweep(sweep: LocalSweep): Promise<TrialEnd[]> {
  const ends: TrialEnd[] = [];
  const hosts = new Set<TrialProcess>();
  const interrupt = () => {
    for (const host of hosts) host.interrupt();
  };
  sweep.signal.addEventListener('abort', interrupt, { once: true });
  let next = 0;
  const lane = async () => {
    let host: TrialProcess | null = null;
    try {
      while (next < sweep.trials.length && !sweep.signal.aborted) {
        const trial = sweep.trials[next++]!;
        if (!host || host.dead) {
          if (host) hosts.delete(host);
          host = new TrialProcess(sweep.backend);
          hosts.add(host);
        }
        const end = await runTrial(sweep, trial, host);
        ends[trial.index] = end;
        sweep.events.trialEnded(end);
      }
    } finally {
      if (host) {
        await host.close();
        hosts.delete(host);
      }
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

/** One row per trial: its params, how it ended, its time, the flow's outputs and its run id. */
export function sweepTable(ends: readonly TrialEnd[]): string {
  const outputs = [...new Set(ends.flatMap((end) => Object.keys(end.run?.run.result ?? {})))];
  const rows = ends.map((end) => [
    String(end.trial.index),
    describeTrial(end.trial),
    end.status,
    end.run?.run.durationMs == null ? '—' : `${(end.run.run.durationMs / 1000).toFixed(2)} s`,
    ...outputs.map((name) => formatValue(end.run?.run.result[name])),
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
