/**
 * The data engine's producers and consumer.
 *
 * - **Producer throughput**: env steps/s of N producers, each in a worker
 *   thread of its own, serving the product's producer protocol
 *   (`WorkerProducer` ↔ `serveProducer`: requests in, episodes transferred
 *   back), against the same simulator's `rollout` in a bare loop on one
 *   thread, for the same episodes. Node's worker threads stand in for the
 *   browser's Web Workers: the producers are pure core code and the protocol
 *   is the same; what differs is only how a thread is started.
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
import { rollout } from '../../src/core/data/simulator';
import { deriveSeed } from '../../src/core/data/seed';
import {
  createDynamics,
  environmentSpec,
  type EnvironmentSpec,
} from '../../src/core/live/environment';
import { createRandom } from '../../src/core/random';
import { WorkerProducer, type ProducerPort } from '../../workers/engine/producers';
import { compareRow, ratioAtLeast, type BenchRow, type Target } from '../lib/rows';
import { alternate } from '../lib/stats';

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
  // A worker thread does not inherit the TypeScript loader: register it, then load the entry.
  const entry = new URL('./producer-thread.ts', import.meta.url).href;
  const thread = new Worker(
    `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`,
    { eval: true },
  );
  return {
    thread,
    postMessage: (message) => thread.postMessage(message),
    addEventListener: (type: 'message' | 'error', listener: (event: never) => void) => {
      if (type === 'message') thread.on('message', (data: unknown) => listener({ data } as never));
      else
        thread.on('error', (error: Error) =>
          listener({ message: error.message, preventDefault: () => undefined } as never),
        );
    },
    terminate: () => void thread.terminate(),
  };
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
  const seconds = (performance.now() - start) / 1000;
  const episodes = made.flat().length;
  if (episodes !== EPISODES) throw new Error(`the producers made ${episodes} episodes`);
  return STEPS / seconds;
}

/** The same episodes from the same simulator, rolled out in a plain loop on this thread; steps/s. */
async function viaBareLoop(): Promise<number> {
  const dynamics = createDynamics('pendulum');
  const start = performance.now();
  generation++;
  let episodes = 0;
  for (let producer = 0; producer < PRODUCERS; producer++) {
    const random = createRandom(deriveSeed(0, producer, generation));
    for (let made = 0; made < EPISODES / PRODUCERS; made += LOCKSTEP)
      episodes += (
        await rollout(dynamics, { numEnvs: LOCKSTEP, episodeLength: EPISODE_LENGTH, random })
      ).length;
  }
  const seconds = (performance.now() - start) / 1000;
  if (episodes !== EPISODES) throw new Error(`the loop made ${episodes} episodes`);
  return STEPS / seconds;
}

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

export async function run(): Promise<BenchRow[]> {
  const ports = Array.from({ length: PRODUCERS }, spawnThread);
  try {
    // A port is kept across trials: a `WorkerProducer` closing would terminate its thread.
    const producers = ports.map(
      (port, index) => new WorkerProducer(index, environment, { ...port, terminate: () => {} }),
    );
    console.error(
      `[producers] ${PRODUCERS} worker producers vs one thread, ${EPISODES} pendulum episodes of ${EPISODE_LENGTH} steps…`,
    );
    const { a, b } = await alternate({
      a: () => viaWorkers(producers),
      b: viaBareLoop,
      // A worker's JIT warms on its own, after the main thread's: give it time to tier up.
      warmups: 3,
      minTrials: 5,
      maxTrials: 11,
      budgetMs: 30_000,
    });
    const throughput = compareRow({
      name: `producers: env steps/s, ${PRODUCERS} workers vs one thread`,
      unit: 'steps/s',
      lowerIsBetter: false,
      ours: a,
      reference: b,
      target: ratioAtLeast(1.6),
      note: `${PRODUCERS} WorkerProducers over worker threads (the producer protocol, episodes transferred back) vs the same pendulum rollouts in a bare loop on one thread; ${EPISODES} episodes × ${EPISODE_LENGTH} steps, ${LOCKSTEP} in lockstep, random policy; ${availableParallelism()} cores; the target is set for 2 cores`,
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
    return [throughput, consumer];
  } finally {
    for (const port of ports) await port.thread.terminate();
  }
}
