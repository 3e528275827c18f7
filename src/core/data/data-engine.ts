/**
 * The data engine: producers fill the episode cache in generations. A refill
 * asks every producer for its share of one whole cache (`buffer_size`
 * episodes from `num_envs` producers) and lands them together, so what the
 * consumer sees changes only between generations.
 *
 * Refills are coalesced: asking while one is pending returns the pending
 * generation instead of starting another, so a consumer that asks on every
 * step cannot multiply production. A refill that would overrun
 * `max_generated_episodes` is not started at all: a partial cache is never
 * produced to use up the remainder, because a generation is the unit the
 * plan and the budgets are computed for. When no further refill can start,
 * the cache opens its final supply.
 *
 * A producer that fails fails the engine with the producer's own error, and
 * every wait sees it at its next look, so a broken producer ends the run
 * instead of hanging it. Closing (or aborting the run's signal) stops the
 * producers in flight and releases them. Once every episode of a producer's
 * share has been spent and has left the cache, the share goes back to its
 * producer (`release`), which may write later episodes into its memory.
 */
import type { Random } from '../random';
import type { Clock } from './clock';
import { checkDataEngineConfig, type DataEngineConfig } from './config';
import { cutContextWindow, drawWindowOffset, validateContextWindow } from './context-window';
import type { ContextChunk, ContextWindow, EpisodeData } from './episode';
import { EpisodeCache, type CachedEpisode, type ProducedShare } from './episode-cache';
import type { Producer } from './producer';
import { noTelemetry, type DataTelemetry } from './telemetry';
import { FlowbenchError, isFlowbenchError } from '../errors';

export interface DataEngineOptions {
  config: DataEngineConfig;
  /** Exactly `config.num_envs` producers; producer `i` sits at index `i`. */
  producers: readonly Producer[];
  clock: Clock;
  telemetry?: DataTelemetry;
  /** The run's signal: when it aborts, the engine closes. */
  signal?: AbortSignal;
}

export type GenerationState = 'pending' | 'ready' | 'failed';

/** Counters the run view charts (cache fill, production, consumption). */
export interface DataEngineStats {
  generationsReady: number;
  pendingGeneration: number | null;
  producedEpisodes: number;
  cachedEpisodes: number;
  servedChunks: number;
  unlockedRemainingChunks: number;
  finalSupply: boolean;
}

/** `total` split into `parts` near-equal integer shares, larger ones first. */
export function splitShares(total: number, parts: number): number[] {
  const base = Math.floor(total / parts);
  return Array.from({ length: parts }, (_, i) => base + (i < total % parts ? 1 : 0));
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

export class DataEngine {
  readonly config: DataEngineConfig;
  readonly cache: EpisodeCache;
  private readonly producers: readonly Producer[];
  private readonly clock: Clock;
  private readonly telemetry: DataTelemetry;
  private readonly states = new Map<number, GenerationState>();
  /** The share each cached episode came in, with how many of that share are still cached. */
  private readonly shareOf = new Map<EpisodeData, { share: ProducedShare; cached: number }>();
  private lastGeneration = 0;
  private pending: number | null = null;
  private production: AbortController | null = null;
  private inflight: Promise<void> = Promise.resolve();
  private produced = 0;
  private generationsReady = 0;
  private failed: Error | null = null;
  private closed = false;
  private readonly detach: () => void;

  constructor(options: DataEngineOptions) {
    this.config = checkDataEngineConfig(options.config);
    if (options.producers.length !== this.config.num_envs)
      throw new FlowbenchError('invalid-data-config', {
        issues: [
          {
            path: 'num_envs',
            message: `${options.producers.length} producers were given for num_envs ${this.config.num_envs}`,
          },
        ],
      });
    this.producers = options.producers;
    this.clock = options.clock;
    this.telemetry = options.telemetry ?? noTelemetry;
    this.cache = new EpisodeCache(
      this.config.episode_sample_budget,
      this.config.episode_sample_hard_limit,
      (spent) => this.releaseSpent(spent),
    );
    const { signal } = options;
    const onAbort = () => this.close();
    signal?.addEventListener('abort', onAbort, { once: true });
    this.detach = () => signal?.removeEventListener('abort', onAbort);
    if (signal?.aborted) this.close();
  }

  /** With the `auto` refill policy, request the first generation; with `manual`, nothing. */
  start(): void {
    if (this.config.refill_policy === 'auto') this.requestRefill();
  }

  /**
   * Ask for a refill. Returns the generation that will answer it: the pending
   * one if a refill is already under way, a new one otherwise, or null when a
   * whole generation would overrun `max_generated_episodes`.
   */
  requestRefill(): number | null {
    this.assertHealthy();
    if (this.pending !== null) return this.pending;
    if (!this.canStartRefill()) return null;
    const generation = ++this.lastGeneration;
    const requestedAt = this.clock.now() / 1000;
    this.pending = generation;
    this.states.set(generation, 'pending');
    this.telemetry.event({ type: 'refill_requested', generation, at: requestedAt });
    this.inflight = this.produceGeneration(generation, requestedAt);
    return generation;
  }

  /** Whether a refill could start now: none pending, and a whole generation fits under the ceiling. */
  canStartRefill(): boolean {
    const ceiling = this.config.max_generated_episodes;
    return (
      this.pending === null &&
      (ceiling === null || this.produced + this.config.buffer_size <= ceiling)
    );
  }

  /** True once nothing more will be produced: no refill pending and none can start. */
  isFinalSupply(): boolean {
    return this.pending === null && !this.canStartRefill();
  }

  generationState(generation: number): GenerationState | undefined {
    return this.states.get(generation);
  }

  get pendingGeneration(): number | null {
    return this.pending;
  }

  /** The producer error that failed the engine, if one did. */
  get failure(): Error | null {
    return this.failed;
  }

  /** Throws the producer failure, or `data-engine-closed` once closed. */
  assertHealthy(): void {
    if (this.failed) throw this.failed;
    if (this.closed) throw new FlowbenchError('data-engine-closed', {});
  }

  /**
   * Serve one context window: count a chunk against a cached episode and cut
   * the window from it. Throws `data-unavailable` (transient) when nothing
   * can be served yet, `data-exhausted` when nothing ever will again.
   */
  serve(random: Random, window: ContextWindow): ContextChunk {
    const issues = validateContextWindow(window);
    if (issues.length > 0) throw new FlowbenchError('invalid-data-config', { issues });
    this.assertHealthy();
    const auto = this.config.refill_policy === 'auto';
    let episode;
    try {
      episode = this.cache.take(random);
    } catch (error) {
      if (!isFlowbenchError(error, 'data-unavailable')) throw error;
      if (auto) this.requestRefill();
      if (this.isFinalSupply())
        throw new FlowbenchError('data-exhausted', {
          maxEpisodes: this.config.max_generated_episodes,
        });
      throw error;
    }
    if (auto && this.cache.unlockedRemainingChunks() === 0) this.requestRefill();
    const steps = window.contextLength + window.predictionLength;
    return cutContextWindow(episode, drawWindowOffset(episode.data.length, steps, random), window);
  }

  /** Resolves when the refill in flight (if any) has landed or failed. */
  settled(): Promise<void> {
    return this.inflight;
  }

  stats(): DataEngineStats {
    return {
      generationsReady: this.generationsReady,
      pendingGeneration: this.pending,
      producedEpisodes: this.produced,
      cachedEpisodes: this.cache.size,
      servedChunks: this.cache.servedChunks,
      unlockedRemainingChunks: this.cache.unlockedRemainingChunks(),
      finalSupply: this.cache.finalSupply,
    };
  }

  /** Stop the producers in flight and release them; idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.production?.abort();
    for (const producer of this.producers) producer.close();
    this.detach();
  }

  private async produceGeneration(generation: number, requestedAt: number): Promise<void> {
    const production = new AbortController();
    this.production = production;
    const shares = splitShares(this.config.buffer_size, this.producers.length);
    try {
      const landed = await Promise.all(
        this.producers.map((producer, i) =>
          this.produceShare(producer, i, generation, shares[i]!, production.signal),
        ),
      );
      if (this.closed) return;
      const episodes = this.cache.land(generation, landed).length;
      for (const share of landed) {
        const held = { share, cached: share.episodes.length };
        for (const data of share.episodes) this.shareOf.set(data, held);
      }
      this.produced += episodes;
      this.generationsReady++;
      this.pending = null;
      this.states.set(generation, 'ready');
      this.telemetry.event({
        type: 'generation_ready',
        generation,
        requestedAt,
        at: this.clock.now() / 1000,
        episodes,
      });
      if (!this.canStartRefill()) this.cache.openFinalSupply();
    } catch (error) {
      production.abort(); // the other producers of this generation stop too
      if (this.closed) return;
      this.failed ??= error instanceof Error ? error : new Error(String(error));
      this.pending = null;
      this.states.set(generation, 'failed');
      this.telemetry.event({
        type: 'generation_failed',
        generation,
        at: this.clock.now() / 1000,
        error: message(error),
      });
    } finally {
      if (this.production === production) this.production = null;
    }
  }

  /** Give a share's memory back to its producer once every episode of it is spent. */
  private releaseSpent(spent: readonly CachedEpisode[]): void {
    for (const { data } of spent) {
      const held = this.shareOf.get(data);
      if (!held) continue;
      this.shareOf.delete(data);
      if (--held.cached === 0) this.producers[held.share.producer]?.release?.(held.share.episodes);
    }
  }

  private async produceShare(
    producer: Producer,
    index: number,
    generation: number,
    count: number,
    signal: AbortSignal,
  ): Promise<ProducedShare> {
    if (count === 0) return { producer: index, episodes: [] };
    const at = () => this.clock.now() / 1000;
    this.telemetry.event({ type: 'producer_started', producer: index, generation, at: at() });
    let episodes;
    try {
      episodes = await producer.produce({ generation, count }, signal);
      if (episodes.length !== count)
        throw new Error(`it returned ${episodes.length} episodes for a request of ${count}`);
    } catch (error) {
      if (signal.aborted) throw error; // stopped because another producer failed or the engine closed
      this.telemetry.event({
        type: 'producer_failed',
        producer: index,
        generation,
        at: at(),
        error: message(error),
      });
      throw new FlowbenchError(
        'producer-failed',
        { producer: index, generation, reason: message(error) },
        { cause: error },
      );
    }
    this.telemetry.event({
      type: 'producer_finished',
      producer: index,
      generation,
      at: at(),
      episodes: episodes.length,
    });
    return { producer: index, episodes };
  }
}
