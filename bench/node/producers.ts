/**
 * The data engine's producers and consumer.
 *
 * - **Producer throughput**: env steps/s of N producers, each in a worker
 *   thread of its own, serving the product's producer protocol
 *   (`WorkerProducer` ↔ `serveProducer`: requests in, episodes transferred
 *   back), against the same simulator's `rollout` in a bare loop on one
 *   thread, for the same episodes. Each trial's episodes are then released,
 *   as the engine releases a spent generation, so the workers write the next
 *   trial's into memory they have had back (`BufferPool`); the bare loop's
 *   small per-rollout buffers are recycled by the allocator as usual.
 *   Node's worker threads stand in for the browser's Web Workers: the
 *   producers are pure core code and the protocol is the same; what differs
 *   is only how a thread is started.
 * - **Ceiling**: the bare loop's rollouts split over as many bare threads,
 *   one message in and a count out: what the threads themselves give here.
 *   Its trials take turns with the producers' and the bare loop's in the same
 *   rounds, so a machine that slows down mid-run (another process, a busy
 *   neighbour) slows all three alike, and the producers row reads against it.
 * - **Consumer rate**: a planned `FlowController` over a `DataEngine` fed by
 *   the same worker producers, on the real clock; the chunks/s it achieves
 *   between its first and last granted batch, against the plan's
 *   `training_chunks_per_second_target`. Sampling costs little next to the
 *   planned slot, so what the ratio shows is the pacing itself: timer
 *   lateness, and the no-catch-up rule (a late slot is never made up).
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { systemClock } from '../../src/core/data/clock';
import type { DataEngineConfig } from '../../src/core/data/config';
import { DataEngine } from '../../src/core/data/data-engine';
import { FlowController } from '../../src/core/data/flow-controller';
import type { EnvironmentSpec } from '../../src/core/data/environment-spec';
import { environmentSpec } from '../../src/core/live/environment';
import { createRandom } from '../../src/core/random';
import { threadPort, tsThread } from '../../cli/worker-thread';
import { WorkerProducer, type ProducerPort } from '../../workers/engine/producers';
import { bareRollouts, type BareShare } from './bare-rollouts';
import { compareRow, noTarget, ratioAtLeast, type BenchRow, type Target } from '../lib/rows';
import { median } from '../lib/stats';

/** Producers: one per core of the 2-core machine the target is set for. */
const PRODUCERS = 2;
const EPISODE_LENGTH = 64;
/** Instances each producer steps in lockstep, as in the example flow. */
const LOCKSTEP = 8;
/** Episodes per trial, split evenly between the producers. */
const EPISODES = 4096;
const STEPS = EPISODES * EPISODE_LENGTH;

const environment: EnvironmentSpec = environmentSpec('pendulum', {
  num_envs: LOCKSTEP,
  episode_length: EPISODE_LENGTH,
  policy: 'random',
  seed: 0,
});

/** A worker thread speaking the producer protocol, as the engine worker's `Worker` does. */
function spawnThread(): ProducerPort & { thread: Worker } {
  const thread = tsThread(new URL('./producer-thread.ts', import.meta.url));
  return { thread, ...threadPort(thread) };
}

let generation = 0;

/** One trial of the worker producers: every producer makes its share at once; steps/s. */
async function viaWorkers(producers: readonly WorkerProducer[]): Promise<number> {
  const signal = new AbortController().signal;
  const start = performance.now();
  generation++;
  const made = await Promise.all(
    producers.map((p) => p.produce({ generation, count: EPISODES / producers.length }, signal)),
  );
  const episodes = made.flat().length;
  // Spent, as the engine's cache spends a generation: the memory goes back to each worker.
  made.forEach((share, i) => producers[i]!.release(share));
  const seconds = (performance.now() - start) / 1000;
  if (episodes !== EPISODES) throw new Error(`the producers made ${episodes} episodes`);
  return STEPS / seconds;
}

/** The same episodes from the same simulator, rolled out in a plain loop on this thread; steps/s. */
async function viaBareLoop(): Promise<number> {
  const start = performance.now();
  generation++;
  let episodes = 0;
  for (let producer = 0; producer < PRODUCERS; producer++)
    episodes += await bareRollouts(share(producer));
  const seconds = (performance.now() - start) / 1000;
  if (episodes !== EPISODES) throw new Error(`the loop made ${episodes} episodes`);
  return STEPS / seconds;
}

/** The ceiling: the bare loop's rollouts split over threads, nothing sent back but a count; steps/s. */
async function viaBareThreads(threads: readonly Worker[]): Promise<number> {
  const start = performance.now();
  generation++;
  const made = await Promise.all(
    threads.map(
      (thread, producer) =>
        new Promise<number>((resolve) => {
          thread.once('message', resolve);
          thread.postMessage(share(producer));
        }),
    ),
  );
  const seconds = (performance.now() - start) / 1000;
  const episodes = made.reduce((a, b) => a + b, 0);
  if (episodes !== EPISODES) throw new Error(`the bare threads made ${episodes} episodes`);
  return STEPS / seconds;
}

/** Producer `producer`'s share of the current trial. */
const share = (producer: number): BareShare => ({
  producer,
  generation,
  count: EPISODES / PRODUCERS,
  numEnvs: LOCKSTEP,
  episodeLength: EPISODE_LENGTH,
});

/** The plan of the consumer row: the example flow's engine. */
const plan = {
  batch_size: 32,
  training_chunks_per_second_target: 4000,
  active_chunks_per_second_cap: null,
  refill_remaining_chunks: 64,
};
const engineConfig: DataEngineConfig = {
  buffer_size: 32,
  num_envs: PRODUCERS,
  refill_policy: 'manual',
  episode_sample_budget: 8,
  episode_sample_hard_limit: 16,
  max_generated_episodes: null,
  controller: { data_wait_timeout: 30, generation_timeout: 60, poll_interval: 0.001 },
  plan,
};
/** Batches per consumer trial: about 2 s at the planned rate. */
const BATCHES = 250;
const window = { contextLength: 1, predictionLength: 4 };

/** One consumer trial: chunks/s between the first and the last granted batch. */
async function consume(ports: readonly ProducerPort[]): Promise<number> {
  const run = new AbortController();
  const producers = ports.map((port, index) => new WorkerProducer(index, environment, port));
  const engine = new DataEngine({
    config: engineConfig,
    producers,
    clock: systemClock,
    signal: run.signal,
  });
  const controller = new FlowController({
    engine,
    clock: systemClock,
    random: createRandom(1),
    signal: run.signal,
  });
  try {
    const first = engine.requestRefill();
    if (first !== null) await controller.waitForGeneration(first);
    let firstGrant = 0;
    let lastGrant = 0;
    for (let batch = 0; batch < BATCHES; batch++) {
      if (!(await controller.prepareBatch())) throw new Error('the engine ran out of data');
      lastGrant = performance.now();
      if (batch === 0) firstGrant = lastGrant;
      for (let i = 0; i < plan.batch_size; i++) await controller.sampleContext(window);
    }
    return ((BATCHES - 1) * plan.batch_size) / ((lastGrant - firstGrant) / 1000);
  } finally {
    // Ends the engine without terminating the threads: they serve the next trial.
    run.abort();
    await engine.settled();
  }
}

const withinOfPlan = (fraction: number): Target => ({
  label: `within ${fraction * 100} % of the plan`,
  met: ({ ratio }) => (ratio === null ? null : Math.abs(ratio - 1) <= fraction),
});

/**
 * Trials of every side in rounds, each round in a rotated order (the first
 * side of round i is side i mod n), after untimed warm-up rounds: the
 * producers, the one-thread loop and the bare threads take turns, so a
 * change in the machine's speed during the run falls on all three alike and
 * the producers can be read against the ceiling trial by trial.
 */
async function rotate<K extends string>(
  sides: Record<K, () => Promise<number>>,
  options: { warmups: number; minRounds: number; maxRounds: number; budgetMs: number },
): Promise<Record<K, number[]>> {
  const keys = Object.keys(sides) as K[];
  const trials = Object.fromEntries(keys.map((k) => [k, [] as number[]])) as Record<K, number[]>;
  const started = performance.now();
  for (let round = 0; round < options.warmups + options.maxRounds; round++) {
    const timed = round >= options.warmups;
    for (let i = 0; i < keys.length; i++) {
      const side = keys[(round + i) % keys.length]!;
      const figure = await sides[side]();
      if (timed) trials[side].push(figure);
    }
    const rounds = round + 1 - options.warmups;
    if (rounds >= options.minRounds && performance.now() - started > options.budgetMs) break;
  }
  return trials;
}

/** The median over rounds of `a[i] / b[i]`. */
function ratioText(a: readonly number[], b: readonly number[]): string {
  return `${median(a.map((x, i) => x / b[i]!)).toFixed(3)}×`;
}

export async function run(): Promise<BenchRow[]> {
  const ports = Array.from({ length: PRODUCERS }, spawnThread);
  const bareThreads = Array.from({ length: PRODUCERS }, () =>
    tsThread(new URL('./bare-producer-thread.ts', import.meta.url)),
  );
  try {
    // A port is kept across trials: a `WorkerProducer` closing would terminate its thread.
    const producers = ports.map(
      (port, index) => new WorkerProducer(index, environment, { ...port, terminate: () => {} }),
    );
    console.error(
      `[producers] ${PRODUCERS} worker producers, ${PRODUCERS} bare threads and one thread, ${EPISODES} pendulum episodes of ${EPISODE_LENGTH} steps…`,
    );
    const trials = await rotate(
      {
        ours: () => viaWorkers(producers),
        reference: viaBareLoop,
        ceiling: () => viaBareThreads(bareThreads),
      },
      // A worker's JIT warms on its own, after the main thread's: give it time to tier up.
      { warmups: 3, minRounds: 11, maxRounds: 41, budgetMs: 30_000 },
    );
    const throughput = compareRow({
      name: `producers: env steps/s, ${PRODUCERS} workers vs one thread`,
      unit: 'steps/s',
      lowerIsBetter: false,
      ours: trials.ours,
      reference: trials.reference,
      target: ratioAtLeast(1.6),
      note: `${PRODUCERS} WorkerProducers over worker threads (the producer protocol, episodes transferred back, released after each trial as the engine releases a spent generation) vs the same pendulum rollouts in a bare loop on one thread; ${EPISODES} episodes × ${EPISODE_LENGTH} steps, ${LOCKSTEP} in lockstep, random policy; ${availableParallelism()} cores; the target is set for 2 cores; measured in the same rounds as the ceiling row`,
    });
    const ceiling = compareRow({
      name: `producers: ceiling, ${PRODUCERS} bare threads vs one thread`,
      unit: 'steps/s',
      lowerIsBetter: false,
      ours: trials.ceiling,
      reference: trials.reference,
      target: noTarget,
      note: `what ${PRODUCERS} threads give on this machine with no protocol: the bare loop's rollouts, one producer's share per worker thread, one message in and a count out per trial, no episodes moved; its trials take turns with the producers row's in the same rounds (median ours/ceiling per round: ${ratioText(trials.ours, trials.ceiling)}), so read that row against this one`,
    });

    console.error(
      `[producers] consumer paced to ${plan.training_chunks_per_second_target} chunks/s…`,
    );
    const shared = ports.map((port) => ({ ...port, terminate: () => {} }));
    await consume(shared); // warm-up
    const achieved: number[] = [];
    for (let trial = 0; trial < 5; trial++) achieved.push(await consume(shared));
    const consumer = compareRow({
      name: 'data engine: consumer chunks/s vs the plan',
      unit: 'chunks/s',
      lowerIsBetter: false,
      ours: achieved,
      reference: achieved.map(() => plan.training_chunks_per_second_target),
      target: withinOfPlan(0.05),
      note: `a planned FlowController (batch ${plan.batch_size}, ${plan.training_chunks_per_second_target} chunks/s, refill at ${plan.refill_remaining_chunks}) over a DataEngine of ${PRODUCERS} worker producers, real clock; ${BATCHES} batches of ${window.contextLength}+${window.predictionLength}-step windows per trial, rate between the first and last granted batch; the reference is the plan's target`,
    });
    return [throughput, ceiling, consumer];
  } finally {
    for (const port of ports) await port.thread.terminate();
    for (const thread of bareThreads) await thread.terminate();
  }
}
