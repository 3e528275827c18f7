/**
 * `data.engine`: the online data source. It starts `num_envs` producers of
 * the connected environment (each in a Web Worker of its own in the
 * browser), lands the first generation, and hands a live source downstream.
 *
 * The node finishes as soon as its source is live, because a node's outputs
 * reach its consumers only when it finishes; the source itself lives on,
 * owned by the run — producing generations as consumers ask, streaming its
 * telemetry on this node's ports — and is closed when the run ends, however
 * it ends. Waiting for the first generation here (bounded by
 * `generation_timeout`) puts the producers' start-up and any early producer
 * failure on this node, where a person looks for it.
 *
 * Config findings name the param: the flow controller's checks across
 * fields (a plan needs `num_envs` to divide `buffer_size`, and so on) are
 * reported as `param '<name>'`, never by the engine's internal paths. They
 * are the kind's `checkParams`, so validation and submit refuse a bad config
 * before a run exists; `execute` checks again for callers that skip both.
 */
import { defineNodeKind } from '../catalog/kind';
import { systemClock } from '../data/clock';
import { refillPolicies } from '../data/config';
import { DataEngine } from '../data/data-engine';
import { FlowController } from '../data/flow-controller';
import { waitBounded } from '../data/wait';
import { ownByRun } from '../runtime/run-scope';
import { createRandom } from '../random';
import { engineConfigFromParams, engineParamIssues } from '../live/engine-config';
import { expectEnvironment } from '../live/environment';
import { LiveSource } from '../live/live-source';
import { SourceTelemetry, type TelemetryPort } from '../live/source-telemetry';
import { FlowbenchError } from '../errors';

const telemetryOutputs = [
  {
    name: 'cache_fill',
    description: 'Chunks the cache can still serve, after each landing and each consumed batch.',
  },
  {
    name: 'produced_episodes',
    description: 'Episodes produced so far, at each generation landed.',
  },
  {
    name: 'episodes_per_second',
    description: "Each generation's episodes over the time from its request to its landing.",
  },
  {
    name: 'consumed_chunks',
    description: 'Context windows served so far, after each consumed batch.',
  },
  {
    name: 'chunks_per_second',
    description: 'Consumption rate, over windows of at least half a second.',
  },
] as const satisfies readonly { name: TelemetryPort; description: string }[];

export const dataEngine = defineNodeKind({
  kind: 'data.engine',
  version: 1,
  // Never cached: its producers pace themselves by the wall clock.
  cache: 'never',
  title: 'Data engine',
  category: 'data',
  description:
    'An online data source: producers step the environment and fill an episode cache one generation at a time; consumers sample context windows under per-episode budgets and a flow controller that paces them to a plan. Every wait is recorded with the run.',
  params: {
    buffer_size: {
      type: 'int',
      default: 32,
      min: 1,
      max: 1_000_000,
      description: 'Episodes per cache, i.e. per generation.',
    },
    num_envs: {
      type: 'int',
      default: 2,
      min: 1,
      max: 64,
      description: 'Producers; in the browser each runs in a Web Worker of its own.',
    },
    refill_policy: {
      type: 'enum',
      options: refillPolicies,
      default: 'manual',
      description:
        'manual: the flow controller requests each refill (required by a plan); auto: the engine refills whenever the cache runs dry.',
    },
    episode_sample_budget: {
      type: 'int',
      default: 8,
      min: 1,
      max: 1_000_000,
      description: 'Chunks an episode serves before it is spent.',
    },
    episode_sample_hard_limit: {
      type: 'int',
      default: 16,
      min: 1,
      max: 1_000_000,
      description: 'Chunks an episode may ever serve, once no more data will come (≥ the budget).',
    },
    max_generated_episodes: {
      type: 'int',
      default: 0,
      min: 0,
      description: 'Production ceiling in episodes; 0 for none.',
    },
    data_wait_timeout: {
      type: 'number',
      default: 30,
      min: 0,
      description: 'Longest a consumer waits for data or for a batch’s quota, in seconds.',
    },
    generation_timeout: {
      type: 'number',
      default: 60,
      min: 0,
      description: 'Longest a wait for one generation lasts (the first one included), in seconds.',
    },
    poll_interval: {
      type: 'number',
      default: 0.01,
      min: 0,
      description: 'How often a wait looks again, in seconds.',
    },
    plan: {
      type: 'boolean',
      default: true,
      description:
        'Pace consumption to a plan (the fields below); off: consumers only wait for data.',
    },
    batch_size: {
      type: 'int',
      default: 32,
      min: 1,
      max: 1_000_000,
      description: 'Plan: chunks per planned batch.',
    },
    training_chunks_per_second_target: {
      type: 'number',
      default: 4000,
      min: 0,
      description: 'Plan: the consumption rate, chunks per second.',
    },
    active_chunks_per_second_cap: {
      type: 'number',
      default: 0,
      min: 0,
      description: 'Plan: a ceiling on the rate; 0 for none.',
    },
    refill_remaining_chunks: {
      type: 'int',
      default: 64,
      min: 0,
      description: 'Plan: request a refill once the cache can serve this many chunks or fewer.',
    },
  },
  inputs: [
    { name: 'environment', type: 'environment', description: 'What the producers simulate.' },
  ],
  outputs: [
    { name: 'source', type: 'live', description: 'The live source, open until the run ends.' },
    ...telemetryOutputs.map((o) => ({ ...o, type: 'number' as const, stream: true })),
  ],
  checkParams: (params) =>
    engineParamIssues(engineConfigFromParams(params)).map((issue) => ({
      param: issue.path,
      message: issue.message,
    })),
  async execute(ctx) {
    const environment = expectEnvironment(ctx.inputs.environment, 'environment');
    const config = engineConfigFromParams(ctx.params);
    const issues = engineParamIssues(config);
    if (issues.length > 0)
      throw new FlowbenchError('node-input', {
        problem: `The data engine config is not valid:\n${issues.map((i) => `param '${i.path}': ${i.message}`).join('\n')}`,
      });
    const clock = systemClock;
    const telemetry = new SourceTelemetry(
      {
        emit: (port, value) => ctx.emit(port, value),
        interval: (kind, start, end) => ctx.interval(kind, start, end),
        log: (message) => ctx.log(message),
      },
      () => clock.now(),
    );
    const host = ctx.producers;
    const producers = host.producers(environment, config.num_envs);
    let engine: DataEngine;
    try {
      engine = new DataEngine({ config, producers, clock, telemetry, signal: ctx.signal });
    } catch (error) {
      for (const producer of producers) producer.close();
      throw error;
    }
    telemetry.attach(() => engine.stats());
    const source = new LiveSource(ctx.node, engine, environment, clock, telemetry);
    ownByRun(ctx.signal, source);
    ctx.log(
      `${config.num_envs} producers of ${environment.simulator} × ${environment.numEnvs} instances, ${host.where}; ${config.buffer_size} episodes per generation${config.plan ? `, planned at ${config.plan.training_chunks_per_second_target} chunks/s` : ''}`,
    );
    await firstGeneration(source, ctx.signal);
    ctx.emit('source', source);
  },
});

/** Land the first generation, within `generation_timeout`; a producer's failure fails the node. */
async function firstGeneration(source: LiveSource, signal: AbortSignal): Promise<void> {
  const { engine, clock, telemetry } = source;
  if (engine.config.refill_policy === 'manual') {
    const random = createRandom(0); // draws nothing: it only waits
    const controller = new FlowController({ engine, clock, telemetry, random, signal });
    const generation = engine.requestRefill();
    if (generation !== null) await controller.waitForGeneration(generation);
    return;
  }
  engine.start();
  const bound = engine.config.controller.generation_timeout;
  await waitBounded({
    kind: 'data_wait',
    until: clock.now() + bound * 1000,
    pollMs: engine.config.controller.poll_interval * 1000,
    look: () => {
      engine.assertHealthy();
      return engine.stats().generationsReady > 0 ? true : undefined;
    },
    timeout: () =>
      new FlowbenchError('generation-timeout', {
        generation: 1,
        after: `generation_timeout ${bound} s`,
      }),
    clock,
    telemetry,
    signal,
  });
}
