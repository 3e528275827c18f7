/**
 * The command line's rows:
 *
 * - the MLP train step through `flowbench run --backend cpu`'s whole path
 *   (`runHeadless`: the run checked and journaled, the run driver, metrics
 *   and node outcomes written to its in-memory store, onnxruntime-node
 *   behind `OrtRuntime`) versus a bare onnxruntime-node loop on the same
 *   batches (ort.ts's `bareTrainer`), each on its own default threads (a
 *   lone run's and onnxruntime's are the same: a thread per core, spinning,
 *   cli/backend.ts) and each in a fresh process (train-window.ts).
 *   Its ratio is taken per pair and the row's is their median (see
 *   `trainRow`): on 2 shared cores one pair's sides see the same load, and
 *   the window means of separate trials swung 0.76–1.22× for a gap of 5 %;
 * - sweep throughput, on WASM and on `cpu`: the same 8 trials of 20,000
 *   steps run by the local sweep in two lane processes versus one
 *   (trials/min), on this machine's cores, each lane's process started (and
 *   its engine warmed) on the clock, as a person's sweep starts them;
 * - queue overhead per trial: a trial enqueued on BullMQ with an idle
 *   `flowbench worker` waiting, from the job's creation to its start
 *   (BullMQ's own `timestamp` and `processedOn`), on a Redis started here;
 * - the train step late in a run (steps 2,000–2,400), each side in a process
 *   of its own (`lateRow`).
 *
 * `FLOWBENCH_CLI_ROWS=train` (or `late`, `sweep`, `sweep-cpu`, `queue`, `overhead`, comma
 * separated) measures only those rows.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import { builtinCatalog } from '../../src/core/nodes';
import type { FlowDocument } from '../../src/core/flow/document';
import { enqueueSweep } from '../../cli/enqueue';
import { connectionOf } from '../../cli/queue';
import { laneThreads, type CliBackend } from '../../cli/backend';
import { runLocalSweep } from '../../cli/sweep';
import { startRedis } from '../../cli/testing-redis';
import { newSweepId, planTrials } from '../../cli/trials';
import {
  absoluteRow,
  compareRow,
  describeFailure,
  noTarget,
  ratioAtLeast,
  unmeasuredRow,
  type BenchRow,
  type Target,
} from '../lib/rows';
import { alternate, median, percentile } from '../lib/stats';
import { WARM_STEPS } from './ort';

const repoRoot = path.resolve(import.meta.dirname, '..', '..');
const stepsPerSecond = (msPerStep: number) => 1000 / msPerStep;
/**
 * Steps timed per trial. onnxruntime-node takes about a millisecond per step
 * on a quiet machine, so ort.ts's 40 steps would be a window of some 45 ms,
 * where one garbage collection landing in it or not decides the row.
 */
const CLI_TIMED_STEPS = 400;
/** The late row's window: steps 2,000–2,400 of a run, where its optimizer state has decayed. */
const LATE_FROM = 2_000;

/** Ms per step of one side over `steps` steps from step `from`, in a fresh process (train-window.ts says why). */
async function windowTrial(side: 'ours' | 'bare', from: number, steps: number): Promise<number> {
  const script = path.join(repoRoot, 'bench/node/train-window.ts');
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', script, side, String(from), String(steps)],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`train-window.ts ${side} exited ${String(code)}`);
  return (JSON.parse(out) as { ms: number }).ms;
}

/**
 * The row of ours against the bare loop over steps `from` to `from + steps`,
 * pair by pair, each side a fresh process, in steps/s; the ratio each
 * pair's own.
 */
async function windowRow(
  from: number,
  steps: number,
  pairs: { readonly min: number; readonly max: number },
  row: {
    readonly name: string;
    readonly target: Target;
    /** Read once the pairs have run (it may say the load at the end). */
    readonly note: () => string;
  },
): Promise<BenchRow> {
  const trials = await alternate({
    a: () => windowTrial('ours', from, steps),
    b: () => windowTrial('bare', from, steps),
    minTrials: pairs.min,
    maxTrials: pairs.max,
    budgetMs: 120_000,
  });
  return compareRow({
    name: row.name,
    target: row.target,
    note: row.note(),
    unit: 'steps/s',
    lowerIsBetter: false,
    ours: trials.a.map(stepsPerSecond),
    reference: trials.b.map(stepsPerSecond),
    paired: true,
  });
}

const sides = (cores: number) =>
  `ours runHeadless (journal, run driver, record writes to the in-memory store, OrtRuntime on onnxruntime-node, each carried output written over the buffer the step before read, each step's rows gathered by onnxruntime from the dataset fed where it lies) as a lone flowbench run has it: ${cores} threads spinning between runs, denormals flushed to zero; the bare loop session.run on onnxruntime's defaults (${cores} threads, spinning), on the same batches, assembled by the node's own batching code`;

/**
 * Ours against the bare loop, pair by pair, each side in a process of its
 * own, as a person runs either. Each trial is a whole window's mean (every
 * step's cost counts, ours' periodic ones too: no step is dropped as an
 * outlier), from fresh weights after the same warm steps on both sides; the
 * sides run back to back in `alternate`'s pairs (AB, BA, …). The ratio is
 * each pair's own (ours / bare in steps/s) and the row's is their median: a
 * pair's two windows lie within seconds, so a burst of load from another
 * process lands on few pairs, and the median leaves them out, on either
 * side alike. The medians of each side, printed beside it, still swing with
 * the load.
 */
async function trainRow(): Promise<BenchRow> {
  return windowRow(
    WARM_STEPS,
    CLI_TIMED_STEPS,
    { min: 9, max: 15 },
    {
      name: 'CLI train step: flowbench run --backend cpu vs bare onnxruntime-node loop',
      target: ratioAtLeast(0.95),
      note: () =>
        `MLP 784→128→10, batch 256, momentum (ort.ts's train flow), steps ${WARM_STEPS}–${WARM_STEPS + CLI_TIMED_STEPS} from fresh weights, each side a fresh process (bench/node/train-window.ts: in one shared process the bare loop ran some 30 % slower after the engine had run); ${sides(availableParallelism())}; ours timed over whole calls (its steps are reported a call at a time); ratio: the median over pairs of each pair's own ratio of window means (pairs run back to back, AB then BA); load average ${loadavg()[0]!.toFixed(2)} at the end`,
    },
  );
}

/**
 * The train row's comparison late in a run, steps 2,000–2,400: by then most
 * of the momentum's velocities would be denormal floats, which the CPU
 * computes slowly, but for the step that makes them zero (mlp-optim.ts; the
 * bare loop runs the same step) and the command line's session flag
 * (cli/backend.ts). It says how the two compare once the engine is warm and
 * the state has decayed, where the train row measures them early in a run;
 * the issue sets no target for it.
 */
async function lateRow(): Promise<BenchRow> {
  return windowRow(
    LATE_FROM,
    CLI_TIMED_STEPS,
    { min: 3, max: 5 },
    {
      name: 'CLI train step late in a run (steps 2,000–2,400): flowbench run --backend cpu vs bare loop',
      target: noTarget,
      note: () =>
        `the train row's MLP, batches and processes, timed over steps ${LATE_FROM}–${LATE_FROM + CLI_TIMED_STEPS}; ${sides(availableParallelism())}; ratio: the median of each pair's own; load average ${loadavg()[0]!.toFixed(2)} at the end; the issue sets no target for it`,
    },
  );
}

const spirals = path.join(repoRoot, 'src/examples/spirals-mlp.flow.json');

/**
 * The local sweep's trials: the README's kind of sweep, lr × seed, 8 trials
 * of 20,000 steps (some 2–5 s each on WASM once warm). Each lane's start is on
 * the clock, as in a person's sweep: on WASM about 7 CPU-seconds (V8
 * compiling and optimising onnxruntime's WASM build in every process), on
 * `cpu` about 2. With 4 trials of 2,000 steps, as this row had, that start was
 * most of the sweep, and two lanes could not beat one.
 */
const SWEEP_STEPS = 20_000;
const SWEEP_FIELDS = { lr: '0.05,0.1', seed: '0..3', steps: String(SWEEP_STEPS) };
const SWEEP_TRIALS = 8;

/** Ms to run the sweep's trials `parallel` at once on `backend`, each lane's threads as the command shares them out. */
async function sweepTrial(
  flow: FlowDocument,
  parallel: number,
  backend: CliBackend,
): Promise<number> {
  const out = await mkdtemp(path.join(tmpdir(), 'flowbench-bench-sweep-'));
  try {
    const trials = planTrials(flow, SWEEP_FIELDS, builtinCatalog, backend);
    if (trials.length !== SWEEP_TRIALS) throw new Error(`the sweep has ${trials.length} trials`);
    const start = performance.now();
    const ends = await runLocalSweep({
      flowPath: spirals,
      sweepId: newSweepId(),
      trials,
      files: [],
      backend,
      threads: laneThreads(parallel, availableParallelism()),
      out,
      parallel,
      signal: new AbortController().signal,
      events: { trialEvent: () => undefined, trialEnded: () => undefined },
    });
    if (ends.some((end) => end.status !== 'ok')) throw new Error('a sweep trial did not end ok');
    return performance.now() - start;
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

function sweepRow(backend: CliBackend): () => Promise<BenchRow> {
  return async () => {
    const flow = JSON.parse(await readFile(spirals, 'utf8')) as FlowDocument;
    const trials = await alternate({
      a: () => sweepTrial(flow, 2, backend),
      b: () => sweepTrial(flow, 1, backend),
      minTrials: 2,
      maxTrials: 3,
      budgetMs: 240_000,
    });
    const perMinute = (ms: number) => (SWEEP_TRIALS * 60_000) / ms;
    const cores = availableParallelism();
    const threads =
      backend === 'cpu'
        ? `, onnxruntime-node threads shared out (2 lanes ${laneThreads(2, cores)} each, 1 lane ${laneThreads(1, cores)})`
        : '';
    return compareRow({
      name: `Sweep throughput (--backend ${backend}): 2 trial processes vs 1`,
      unit: 'trials/min',
      lowerIsBetter: false,
      ours: trials.a.map(perMinute),
      reference: trials.b.map(perMinute),
      target: ratioAtLeast(1.7),
      note: `flowbench sweep's local runner, ${SWEEP_TRIALS} trials of spirals-mlp (${SWEEP_STEPS} steps each), each lane one trial process (started on the clock, all lanes at once, each warming its engine as it starts) running its trials one after another, --parallel 2 vs 1${threads}; ${availableParallelism()} cores, load average ${loadavg()[0]!.toFixed(2)} at the end`,
    });
  };
}

const QUEUE_TRIALS = 20;

/** A `flowbench worker` on `queue`, resolved once it has loaded the engine and waits for trials. */
async function startWorker(redisUrl: string, queue: string) {
  const worker = spawn(
    process.execPath,
    [
      // As the README starts a worker per core: its collector on its own thread (see there).
      '--single-threaded-gc',
      path.join(repoRoot, 'bin/flowbench.mjs'),
      'worker',
      '--redis',
      redisUrl,
      '--queue',
      queue,
      '--threads',
      '1',
      '--json',
    ],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = new Promise((resolve) => worker.once('exit', resolve));
  await new Promise<void>((resolve) => {
    const ready = (chunk: Buffer) => {
      if (!chunk.toString().includes('"event":"worker"')) return;
      // Ready; from now on its lines are drained unread, not decoded on the cores it trains on.
      worker.stdout.off('data', ready);
      worker.stdout.resume();
      resolve();
    };
    worker.stdout.on('data', ready);
  });
  return {
    stop: async () => {
      worker.kill('SIGTERM');
      await exited;
    },
  };
}

const QUEUED_SWEEP = 8;
/** Steps per queued trial: about a second of training each, so the trials, not the queue, are timed. */
const QUEUED_STEPS = 2_000;

/**
 * Ms for `QUEUED_SWEEP` trials enqueued on `queue` to complete, from the
 * enqueue to the last job's end; `first` makes the seeds, so no trial is
 * one already run (enqueuing a trial again is a no-op).
 */
async function queuedSweep(redisUrl: string, queue: Queue, first: number): Promise<number> {
  const flow = JSON.parse(await readFile(spirals, 'utf8')) as FlowDocument;
  const fields = {
    lr: '0.05',
    steps: String(QUEUED_STEPS),
    seed: `${first}..${first + QUEUED_SWEEP - 1}`,
  };
  const before = await queue.getJobCounts('completed', 'failed');
  const start = performance.now();
  await enqueueSweep({
    redis: redisUrl,
    queue: queue.name,
    flow,
    fields,
    backend: 'wasm',
    trials: planTrials(flow, fields, builtinCatalog, 'wasm'),
    files: [],
  });
  // One count a poll, not a state per trial: the watcher's round trips land on the cores and the
  // Redis the workers use, and are no part of what is measured.
  for (;;) {
    const counts = await queue.getJobCounts('completed', 'failed');
    if (counts.failed! > before.failed!) throw new Error('a queued trial failed');
    if (counts.completed! - before.completed! >= QUEUED_SWEEP) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return performance.now() - start;
}

/**
 * The "2 worker processes vs 1": warm `flowbench worker`s (each has
 * loaded the engine and run a sweep's trials before the clock starts, as the
 * workers of a long sweep have), two on one queue against one on another, the
 * same sweep on each in turn.
 */
async function workerSweepRow(): Promise<BenchRow> {
  const redis = await startRedis();
  const pair = new Queue('bench-pair', { connection: connectionOf(redis.url) });
  const single = new Queue('bench-single', { connection: connectionOf(redis.url) });
  const workers = await Promise.all([
    startWorker(redis.url, pair.name),
    startWorker(redis.url, pair.name),
    startWorker(redis.url, single.name),
  ]);
  try {
    let seed = 0;
    const next = () => (seed += QUEUED_SWEEP) - QUEUED_SWEEP;
    // Every worker warm alike: a process's first few trials still compile (onnxruntime's WASM,
    // V8's optimising tiers) on the cores the others train on, so each worker runs a whole sweep's
    // trials untimed first: the pair two sweeps, the single one.
    for (let i = 0; i < 2; i++) await queuedSweep(redis.url, pair, next());
    await queuedSweep(redis.url, single, next());
    const trials = await alternate({
      a: () => queuedSweep(redis.url, pair, next()),
      b: () => queuedSweep(redis.url, single, next()),
      minTrials: 4,
      maxTrials: 7,
      budgetMs: 90_000,
    });
    const perMinute = (ms: number) => (QUEUED_SWEEP * 60_000) / ms;
    return compareRow({
      name: 'Sweep throughput on the queue: 2 flowbench workers vs 1',
      unit: 'trials/min',
      lowerIsBetter: false,
      ours: trials.a.map(perMinute),
      reference: trials.b.map(perMinute),
      target: ratioAtLeast(1.7),
      note: `${QUEUED_SWEEP} trials of spirals-mlp (${QUEUED_STEPS} steps, WASM) enqueued with enqueueSweep, from the enqueue to the last job completed (the queue's completed count polled every 50 ms); warm workers (started before the clock, then ${QUEUED_SWEEP} untimed trials each), each trial's onnxruntime on one thread (--threads 1, and WASM's one), so 2 workers are 2 threads on the cores; each started as the README starts a worker per core, with V8's collector on its own thread (node --single-threaded-gc); their --json lines drained unread; records kept in Redis; ${availableParallelism()} cores`,
    });
  } finally {
    await Promise.all([pair.close(), single.close()]);
    await Promise.all(workers.map((worker) => worker.stop()));
    await redis.stop();
  }
}

async function queueRow(): Promise<BenchRow> {
  const redis = await startRedis();
  const worker = spawn(
    process.execPath,
    [
      path.join(repoRoot, 'bin/flowbench.mjs'),
      'worker',
      '--redis',
      redis.url,
      '--queue',
      'bench',
      '--json',
    ],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = new Promise((resolve) => worker.once('exit', resolve));
  const queue = new Queue('bench', { connection: connectionOf(redis.url) });
  try {
    // Ready once it says so: it has loaded the engine and is waiting on the queue.
    await new Promise<void>((resolve) => {
      worker.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('"event":"worker"')) resolve();
      });
    });
    const flow = JSON.parse(await readFile(spirals, 'utf8')) as FlowDocument;
    const waits: number[] = [];
    for (let i = 0; i < QUEUE_TRIALS; i++) {
      // Another seed each time: the same sweep again would be no new trial.
      const fields = { steps: '1', seed: String(i) };
      const { trials } = await enqueueSweep({
        redis: redis.url,
        queue: 'bench',
        flow,
        fields,
        backend: 'wasm',
        trials: planTrials(flow, fields, builtinCatalog, 'wasm'),
        files: [],
      });
      const job = await queue.getJob(trials[0]!.runId);
      if (!job) throw new Error('the enqueued job is gone');
      for (;;) {
        const state = await job.getState();
        if (state === 'completed' || state === 'failed') break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const done = await queue.getJob(trials[0]!.runId);
      if (done?.processedOn === undefined) throw new Error('the job never started');
      waits.push(done.processedOn - done.timestamp);
    }
    return absoluteRow({
      name: 'Queue overhead per trial: enqueue → start',
      unit: 'ms',
      value: percentile(waits, 95),
      target: noTarget,
      trials: waits.length,
      p95: percentile(waits, 95),
      note: `p95 (median ${median(waits).toFixed(0)} ms) from BullMQ's job timestamp to processedOn, one trial at a time with an idle flowbench worker on a local redis-server; the issue sets no number`,
    });
  } finally {
    await queue.close();
    worker.kill('SIGTERM');
    await exited;
    await redis.stop();
  }
}

/** The rows `FLOWBENCH_CLI_ROWS` names (all when unset), in this order. */
const rows: [string, string, () => Promise<BenchRow>][] = [
  ['train', 'train step', trainRow],
  ['late', 'train step late in a run', lateRow],
  ['sweep', 'sweep throughput', sweepRow('wasm')],
  ['sweep-cpu', 'sweep throughput on cpu', sweepRow('cpu')],
  ['queue', 'sweep throughput on the queue', workerSweepRow],
  ['overhead', 'queue overhead', queueRow],
];

export async function run(): Promise<BenchRow[]> {
  const wanted = process.env.FLOWBENCH_CLI_ROWS?.split(',').filter(Boolean);
  const measured: BenchRow[] = [];
  for (const [key, label, row] of rows) {
    if (wanted && wanted.length > 0 && !wanted.includes(key)) continue;
    console.error(`[cli] ${label}…`);
    // A row that fails (no redis-server, a trial process that died) says why; the others still count.
    measured.push(
      await row().catch((error: unknown) =>
        unmeasuredRow(`CLI ${label}`, '—', noTarget, describeFailure(error)),
      ),
    );
  }
  return measured;
}
