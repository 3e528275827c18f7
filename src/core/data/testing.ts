/**
 * Fixtures for the data engine's tests: a small valid config, episodes whose
 * contents say where they came from, and producers whose timing and failures
 * the test controls through a fake clock.
 */
import { createRandom } from '../random';
import type { Clock } from './clock';
import type { DataEngineConfig, DataPlan } from './config';
import { DataEngine } from './data-engine';
import type { EpisodeData } from './episode';
import { FakeClock } from './fake-clock';
import { FlowController } from './flow-controller';
import type { ProduceRequest, Producer } from './producer';
import { TelemetryLog } from './telemetry';

/** 4 episodes per cache from 2 producers, 2 chunks each; 10 s data wait, 20 s generation wait, 0.1 s polls. */
export function engineConfig(overrides: Partial<DataEngineConfig> = {}): DataEngineConfig {
  return {
    buffer_size: 4,
    num_envs: 2,
    refill_policy: 'manual',
    episode_sample_budget: 2,
    episode_sample_hard_limit: 2,
    max_generated_episodes: null,
    controller: { data_wait_timeout: 10, generation_timeout: 20, poll_interval: 0.1 },
    plan: null,
    ...overrides,
  };
}

/** Batches of 2 at 20 chunks/s (one batch per 100 ms), refilling at 4 chunks left. */
export function planFor(overrides: Partial<DataPlan> = {}): DataPlan {
  return {
    batch_size: 2,
    training_chunks_per_second_target: 20,
    refill_remaining_chunks: 4,
    ...overrides,
  };
}

/** An episode whose observation at step t is `[tag, t]`, action `[t]`, reward `t`. */
export function countingEpisode(length: number, tag = 0): EpisodeData {
  const observations = new Float32Array((length + 1) * 2);
  for (let t = 0; t <= length; t++) observations.set([tag, t], t * 2);
  const steps = Float32Array.from({ length }, (_, t) => t);
  const dones = new Uint8Array(length);
  dones[length - 1] = 1;
  return {
    length,
    observationSize: 2,
    actionSize: 1,
    observations,
    actions: steps,
    rewards: steps.slice(),
    dones,
    terminated: false,
  };
}

export interface ScriptedProducerOptions {
  /** Fake-clock time each request takes. */
  latencyMs?: number;
  episodeLength?: number;
  /** An error to fail a request with, decided per request. */
  fail?: (request: ProduceRequest) => Error | undefined;
}

/** A producer that answers after a fake-clock delay and remembers what it was asked. */
export class ScriptedProducer implements Producer {
  readonly requests: ProduceRequest[] = [];
  readonly signals: AbortSignal[] = [];
  closed = false;

  constructor(
    readonly index: number,
    private readonly clock: Clock,
    private readonly options: ScriptedProducerOptions = {},
  ) {}

  async produce(request: ProduceRequest, signal: AbortSignal): Promise<EpisodeData[]> {
    this.requests.push(request);
    this.signals.push(signal);
    await this.clock.sleep(this.options.latencyMs ?? 1000, signal);
    const error = this.options.fail?.(request);
    if (error) throw error;
    const tag = request.generation * 100 + this.index * 10;
    return Array.from({ length: request.count }, (_, k) =>
      countingEpisode(this.options.episodeLength ?? 8, tag + k),
    );
  }

  close(): void {
    this.closed = true;
  }
}

export interface DataSetup {
  config?: Partial<DataEngineConfig>;
  /** Options for every producer, or one per producer. */
  producers?: ScriptedProducerOptions | ((index: number) => ScriptedProducerOptions);
  signal?: AbortSignal;
  seed?: number;
}

/** A fake clock, a telemetry log, scripted producers and an engine over them. */
export function setupEngine(setup: DataSetup = {}) {
  const clock = new FakeClock();
  const telemetry = new TelemetryLog();
  const config = engineConfig(setup.config);
  const optionsFor = (i: number) =>
    typeof setup.producers === 'function' ? setup.producers(i) : (setup.producers ?? {});
  const producers = Array.from(
    { length: config.num_envs },
    (_, i) => new ScriptedProducer(i, clock, optionsFor(i)),
  );
  const engine = new DataEngine({
    config,
    producers,
    clock,
    telemetry,
    ...(setup.signal ? { signal: setup.signal } : {}),
  });
  return { clock, telemetry, producers, engine };
}

/** `setupEngine` plus a flow controller over it. */
export function setupController(setup: DataSetup = {}) {
  const parts = setupEngine(setup);
  const controller = new FlowController({
    engine: parts.engine,
    clock: parts.clock,
    telemetry: parts.telemetry,
    random: createRandom(setup.seed ?? 1),
    ...(setup.signal ? { signal: setup.signal } : {}),
  });
  return { ...parts, controller };
}
