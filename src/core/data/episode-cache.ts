/**
 * The episode cache: what the consumer samples from. Episodes arrive a whole
 * generation at a time (never one producer's share alone, so a batch never
 * mixes a half-landed generation), and each episode serves at most its
 * sample budget of chunks, which keeps training from overfitting to the few
 * episodes that happen to be cached while fresh data is on its way.
 *
 * Once no further generation can be produced (the production ceiling is
 * reached), the cache opens its *final supply*: every live episode may then
 * serve up to the hard limit, because reusing data is better than stopping
 * when nothing fresher will ever come. The hard limit is never exceeded.
 *
 * "Unlocked remaining chunks" is exactly what `take` can still serve.
 */
import type { Random } from '../random';
import type { EpisodeData, EpisodeId } from './episode';
import { FlowbenchError } from '../errors';

/** An episode as the cache holds it. */
export interface CachedEpisode {
  readonly id: EpisodeId;
  readonly generation: number;
  readonly producer: number;
  readonly data: EpisodeData;
  /** Chunks served so far. */
  served: number;
}

/** One producer's share of a generation. */
export interface ProducedShare {
  producer: number;
  episodes: readonly EpisodeData[];
}

export class EpisodeCache {
  private live: CachedEpisode[] = [];
  /** Live episodes that can still serve, in no particular order. */
  private open: CachedEpisode[] = [];
  private remaining = 0;
  private nextId = 0;
  private final = false;
  private servedTotal = 0;

  constructor(
    /** Chunks an episode serves before it is spent. */
    readonly budget: number,
    /** Chunks an episode may ever serve. */
    readonly hardLimit: number,
    /** Told of the spent episodes that leave the cache; nothing reads them afterwards. */
    private readonly onEvict?: (evicted: readonly CachedEpisode[]) => void,
  ) {}

  /** Chunks each episode may serve now: the budget, or the hard limit once the final supply is open. */
  get limit(): number {
    return this.final ? this.hardLimit : this.budget;
  }

  /** Whether the final supply is open. */
  get finalSupply(): boolean {
    return this.final;
  }

  /** Add a whole generation. Spent episodes of earlier generations leave the cache. */
  land(generation: number, shares: readonly ProducedShare[]): CachedEpisode[] {
    // Only those that can never serve again are reported (the final supply's limit is higher).
    const spent = this.live.filter((e) => e.served >= this.limit);
    this.live = this.live.filter((e) => e.served < this.budget);
    if (spent.length > 0) this.onEvict?.(spent);
    const landed: CachedEpisode[] = [];
    for (const share of shares)
      for (const data of share.episodes) {
        const episode = {
          id: this.nextId++ as EpisodeId,
          generation,
          producer: share.producer,
          data,
          served: 0,
        };
        landed.push(episode);
      }
    this.live.push(...landed);
    this.open.push(...landed);
    this.remaining += landed.length * this.limit;
    return landed;
  }

  /** From now on every live episode may serve up to the hard limit. */
  openFinalSupply(): void {
    if (this.final) return;
    this.final = true;
    this.open = this.live.filter((e) => e.served < this.hardLimit);
    this.remaining = this.open.reduce((sum, e) => sum + this.hardLimit - e.served, 0);
  }

  /** Chunks the cache can still serve. */
  unlockedRemainingChunks(): number {
    return this.remaining;
  }

  /** Episodes held (the spent ones of the latest generation included). */
  get size(): number {
    return this.live.length;
  }

  /** Chunks served since the cache was made. */
  get servedChunks(): number {
    return this.servedTotal;
  }

  /** The episodes held, for inspection. */
  episodes(): readonly CachedEpisode[] {
    return this.live;
  }

  /**
   * Count one chunk against an episode drawn uniformly among those with
   * budget left, and return it. Throws `data-unavailable` when none has.
   */
  take(random: Random): CachedEpisode {
    if (this.open.length === 0)
      throw new FlowbenchError('data-unavailable', {
        problem:
          this.live.length === 0
            ? 'The episode cache is empty'
            : `Every cached episode has served its ${this.final ? 'hard limit' : 'sample budget'} (${this.limit} chunks)`,
      });
    const index = Math.floor(random() * this.open.length);
    const episode = this.open[index]!;
    episode.served++;
    this.remaining--;
    this.servedTotal++;
    if (episode.served >= this.limit) {
      this.open[index] = this.open[this.open.length - 1]!;
      this.open.pop();
    }
    return episode;
  }
}
