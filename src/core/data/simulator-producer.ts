/**
 * The in-process producer: runs a simulator in the calling thread. Each
 * generation draws from its own seed (seed, producer, generation), so the
 * episodes are the same whether producers run here or in workers and in
 * whatever order they finish. Long productions yield between rollouts so a
 * cancel gets in. A request's rollouts write into one packed batch, sized
 * for it up front: no per-episode arrays, and nothing to pack for a worker's
 * reply.
 */
import { runCancelled } from '../runtime/cancel';
import { createRandom } from '../random';
import type { BufferPool } from './buffer-pool';
import type { EpisodeData } from './episode';
import { PackedEpisodeWriter, unpackEpisodes, type PackedEpisodes } from './packed-episodes';
import type { ProduceRequest, Producer } from './producer';
import { deriveSeed } from './seed';
import { rolloutInto, type Dynamics, type Policy } from './simulator';

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
    return unpackEpisodes(await this.producePacked(request, signal));
  }

  /**
   * `produce`, with the episodes packed end to end: what a producer worker
   * sends back, its buffers transferred as the rollouts wrote them. With a
   * `pool`, the batch is written into buffers taken from it.
   */
  async producePacked(
    request: ProduceRequest,
    signal: AbortSignal,
    pool?: BufferPool,
  ): Promise<PackedEpisodes> {
    const { dynamics, episodeLength, policy, yieldNow } = this.options;
    const random = createRandom(deriveSeed(this.options.seed, this.index, request.generation));
    const parallel = Math.max(1, this.options.parallel ?? request.count);
    const into = new PackedEpisodeWriter(
      dynamics.observationSize,
      dynamics.actionSize,
      request.count,
      episodeLength,
      pool,
    );
    while (into.count < request.count) {
      if (this.closed) throw new Error(`Producer ${this.index} is closed`);
      if (signal.aborted) throw runCancelled();
      const numEnvs = Math.min(parallel, request.count - into.count);
      await rolloutInto(
        dynamics,
        { numEnvs, episodeLength, random, signal, ...(policy ? { policy } : {}) },
        into,
      );
      if (yieldNow) await yieldNow();
    }
    return into.finish();
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
