/**
 * The flow controller: the consumer's side of the data engine. It decides
 * when to refill, holds training back to the planned rate, and bounds every
 * wait, so a run is never silently starved or silently stuck.
 *
 * - `prepareBatch` (with a plan) requests a refill early, once the unlocked
 *   remaining chunks fall to `refill_remaining_chunks`, so production overlaps
 *   training; waits until a batch's quota is unlocked; and returns false only
 *   when the capped final supply can never fund a complete batch. It then
 *   paces to the planned rate. The next slot is counted from when the batch
 *   was granted, not from the slot it missed: a slow step earns no catch-up
 *   credit, because a burst after a stall would train on a cache the plan
 *   never budgeted for. (Only the pacing timer's own lateness is not held
 *   against the schedule.) Without a plan it only polls for data.
 * - `sampleContext` retries only transient unavailability (no data yet, every
 *   budget momentarily spent); anything else cannot be waited out and
 *   propagates at once.
 * - `waitForGeneration` waits for one generation with a total bound.
 *
 * Every wait goes through `waitBounded` and is recorded as an interval.
 */
import type { Random } from '../random';
import { eitherSignal, type Clock } from './clock';
import { validateControllerUse, type DataPlan } from './config';
import type { DataEngine } from './data-engine';
import type { ContextChunk, ContextWindow } from './episode';
import { noTelemetry, type DataTelemetry } from './telemetry';
import { waitBounded } from './wait';
import { FlowbenchError, isTransient } from '../errors';

export interface FlowControllerOptions {
  /** An engine with the `manual` refill policy: the controller decides refills. */
  engine: DataEngine;
  clock: Clock;
  telemetry?: DataTelemetry;
  /** Draws episodes and window offsets. */
  random: Random;
  /** The run's signal; each call may add its own. */
  signal?: AbortSignal;
}

export interface WaitForGenerationOptions {
  /** An absolute time (epoch ms on the clock) that may cut the wait short. */
  deadline?: number;
  signal?: AbortSignal;
}

const seconds = (ms: number) => Number((ms / 1000).toFixed(3));

export class FlowController {
  private readonly engine: DataEngine;
  private readonly clock: Clock;
  private readonly telemetry: DataTelemetry;
  private readonly random: Random;
  private readonly signal: AbortSignal | undefined;
  /** When the next batch may start (epoch ms); null before the first. */
  private nextBatchAt: number | null = null;

  constructor(options: FlowControllerOptions) {
    const issues = validateControllerUse(options.engine.config);
    if (issues.length > 0) throw new FlowbenchError('invalid-data-config', { issues });
    this.engine = options.engine;
    this.clock = options.clock;
    this.telemetry = options.telemetry ?? noTelemetry;
    this.random = options.random;
    this.signal = options.signal;
  }

  get plan(): DataPlan | null {
    return this.engine.config.plan;
  }

  /**
   * Get ready for the next batch. Resolves true when a batch can be sampled
   * (and, with a plan, its slot at the planned rate has come), false when no
   * complete batch will ever be funded again.
   */
  async prepareBatch(signal?: AbortSignal): Promise<boolean> {
    const plan = this.plan;
    const combined = eitherSignal(this.signal, signal);
    if (!plan) return this.pollForData(combined);
    const { engine } = this;
    const timeoutMs = engine.config.controller.data_wait_timeout * 1000;
    const funded = await waitBounded({
      kind: 'quota_wait',
      until: this.clock.now() + timeoutMs,
      pollMs: engine.config.controller.poll_interval * 1000,
      look: () => {
        engine.assertHealthy();
        const remaining = engine.cache.unlockedRemainingChunks();
        // Also refill when the batch cannot be funded at all, or a plan whose
        // threshold sits below one batch would wait out its timeout.
        if (remaining <= plan.refill_remaining_chunks || remaining < plan.batch_size)
          engine.requestRefill();
        if (remaining >= plan.batch_size) return true;
        if (engine.isFinalSupply()) return false;
        return undefined;
      },
      timeout: (waited) =>
        new FlowbenchError('data-wait-timeout', {
          problem: `No batch after ${seconds(waited)} s (data_wait_timeout): a batch needs ${plan.batch_size} unlocked chunks and the cache has ${engine.cache.unlockedRemainingChunks()}; ${this.describeSupply()}`,
        }),
      clock: this.clock,
      telemetry: this.telemetry,
      signal: combined,
    });
    if (!funded) return false;
    await this.pace(plan, combined);
    return true;
  }

  /**
   * Sample one context window with masks and provenance. Waits (up to
   * `data_wait_timeout`) only while the data is transiently unavailable.
   */
  sampleContext(window: ContextWindow, signal?: AbortSignal): Promise<ContextChunk> {
    const { engine } = this;
    return waitBounded({
      kind: 'data_wait',
      until: this.clock.now() + engine.config.controller.data_wait_timeout * 1000,
      pollMs: engine.config.controller.poll_interval * 1000,
      look: () => {
        try {
          return engine.serve(this.random, window);
        } catch (error) {
          if (isTransient(error)) return undefined;
          throw error;
        }
      },
      timeout: (waited) =>
        new FlowbenchError('data-wait-timeout', {
          problem: `No context window after ${seconds(waited)} s (data_wait_timeout): the cache has no unlocked chunks; ${this.describeSupply()}`,
        }),
      clock: this.clock,
      telemetry: this.telemetry,
      signal: eitherSignal(this.signal, signal),
    });
  }

  /**
   * Wait until `generation` has landed, for at most `generation_timeout`, or
   * until `deadline` if that comes first. Throws `generation-timeout`
   * naming the generation, or the producer error if it failed.
   */
  async waitForGeneration(
    generation: number,
    options: WaitForGenerationOptions = {},
  ): Promise<void> {
    const { engine } = this;
    const boundSeconds = engine.config.controller.generation_timeout;
    const bound = this.clock.now() + boundSeconds * 1000;
    const cut = options.deadline !== undefined && options.deadline < bound;
    await waitBounded({
      kind: 'data_wait',
      until: cut ? options.deadline! : bound,
      pollMs: engine.config.controller.poll_interval * 1000,
      look: () => {
        if (engine.generationState(generation) === 'ready') return true;
        engine.assertHealthy();
        return undefined;
      },
      timeout: (waited) =>
        new FlowbenchError('generation-timeout', {
          generation,
          after: `${seconds(waited)} s (${cut ? 'the deadline came first' : `generation_timeout ${boundSeconds} s`})`,
        }),
      clock: this.clock,
      telemetry: this.telemetry,
      signal: eitherSignal(this.signal, options.signal),
    });
  }

  /** Without a plan: wait for any unlocked chunk; false once the final supply is spent. */
  private pollForData(signal: AbortSignal | undefined): Promise<boolean> {
    const { engine } = this;
    return waitBounded({
      kind: 'data_wait',
      until: this.clock.now() + engine.config.controller.data_wait_timeout * 1000,
      pollMs: engine.config.controller.poll_interval * 1000,
      look: () => {
        engine.assertHealthy();
        if (engine.cache.unlockedRemainingChunks() > 0) return true;
        if (engine.isFinalSupply()) return false;
        return undefined;
      },
      timeout: (waited) =>
        new FlowbenchError('data-wait-timeout', {
          problem: `No data after ${seconds(waited)} s (data_wait_timeout): the cache has no unlocked chunks; ${this.describeSupply()}`,
        }),
      clock: this.clock,
      telemetry: this.telemetry,
      signal,
    });
  }

  /** Hold the batch until its slot at the planned rate. */
  private async pace(plan: DataPlan, signal: AbortSignal | undefined): Promise<void> {
    const rate = Math.min(
      plan.training_chunks_per_second_target,
      plan.active_chunks_per_second_cap ?? Infinity,
    );
    const period = (1000 * plan.batch_size) / rate;
    const slot = this.nextBatchAt;
    const start = this.clock.now();
    let slept = false;
    if (slot !== null && start < slot) {
      slept = true;
      try {
        await this.clock.sleep(slot - start, signal);
      } finally {
        this.telemetry.interval({
          kind: 'usage_throttle',
          start: start / 1000,
          end: this.clock.now() / 1000,
        });
      }
    }
    const now = this.clock.now();
    // A batch made late by the step itself restarts the schedule from now: a
    // slow step earns no burst. A batch made late only by our own timer
    // firing late (by up to half a slot) keeps its slot, or the timer's
    // lateness would add up into a rate below the plan.
    const timerLate = slept && slot !== null && now - slot <= period / 2;
    this.nextBatchAt = (timerLate ? slot : now) + period;
  }

  private describeSupply(): string {
    const { engine } = this;
    const pending = engine.pendingGeneration;
    if (pending !== null) return `generation ${pending} is still being produced`;
    if (engine.isFinalSupply()) return 'max_generated_episodes is reached, so no refill can start';
    return this.plan
      ? 'no refill is pending'
      : 'no refill is pending (without a plan, refills are requested by hand)';
  }
}
