/**
 * The in-process producer: runs a simulator in the calling thread. Each
 * generation draws from its own seed (seed, producer, generation), so the
 * episodes are the same whether producers run here or in workers and in
 * whatever order they finish. Long productions yield between rollouts so a
 * cancel gets in.
 */
import { RunCancelledError } from '../engine/executor';
import { createRandom } from '../random';
import type { EpisodeData } from './episode';
import type { ProduceRequest, Producer } from './producer';
import { deriveSeed } from './seed';
import { rollout, type Dynamics, type Policy } from './simulator';

export interface SimulatorProducerOptions {
  index: number;
  dynamics: Dynamics;
  /** The run's seed; the producer derives its own per generation. */
  seed: number;
  episodeLength: number;
  /** Instances stepped in lockstep per rollout; defaults to the whole request. */
  parallel?: number;
  /** Defaults to a random policy. */
  policy?: Policy;
  /** Lets other work in between rollouts; defaults to none. */
  yieldNow?: () => Promise<void>;
}

export class SimulatorProducer implements Producer {
  readonly index: number;
  private closed = false;

  constructor(private readonly options: SimulatorProducerOptions) {
    this.index = options.index;
  }

  async produce(request: ProduceRequest, signal: AbortSignal): Promise<EpisodeData[]> {
    const { dynamics, episodeLength, policy, yieldNow } = this.options;
    const random = createRandom(deriveSeed(this.options.seed, this.index, request.generation));
    const parallel = Math.max(1, this.options.parallel ?? request.count);
    const episodes: EpisodeData[] = [];
    while (episodes.length < request.count) {
      if (this.closed) throw new Error(`Producer ${this.index} is closed`);
      if (signal.aborted) throw new RunCancelledError();
      const numEnvs = Math.min(parallel, request.count - episodes.length);
      const rolled = await rollout(dynamics, {
        numEnvs,
        episodeLength,
        random,
        signal,
        ...(policy ? { policy } : {}),
      });
      episodes.push(...rolled);
      if (yieldNow) await yieldNow();
    }
    return episodes;
  }

  close(): void {
    this.closed = true;
  }
}

/** `numEnvs` in-process producers of one simulator, indexed 0 … numEnvs − 1. */
export function createSimulatorProducers(
  numEnvs: number,
  options: Omit<SimulatorProducerOptions, 'index'>,
): SimulatorProducer[] {
  return Array.from(
    { length: numEnvs },
    (_, index) => new SimulatorProducer({ ...options, index }),
  );
}
