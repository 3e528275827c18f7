/**
 * A producer: something that makes episodes on request. The engine only ever
 * asks for "`count` episodes of generation `g`" and awaits the answer, so a
 * producer may run in-process (`SimulatorProducer`) or in a Web Worker behind
 * a message port, and the engine cannot tell the difference.
 */
import type { EpisodeData } from './episode';

export interface ProduceRequest {
  generation: number;
  /** Episodes wanted: this producer's share of the generation. */
  count: number;
}

export interface Producer {
  /** The producer's index among the engine's `num_envs` producers. */
  readonly index: number;
  /**
   * Make exactly `request.count` episodes. Rejects with the producer's own
   * error when it fails (or its worker dies); stops promptly when `signal`
   * aborts.
   */
  produce(request: ProduceRequest, signal: AbortSignal): Promise<EpisodeData[]>;
  /**
   * Give back the memory of `episodes`, the very array one `produce` call
   * resolved to, once nothing will read any of them again: the producer may
   * write later episodes into it. A worker producer's episodes become empty
   * (their buffers go back to the worker), so a read after the release shows
   * as missing data, never as another episode's. Optional: a producer
   * without it leaves the memory to the garbage collector.
   */
  release?(episodes: readonly EpisodeData[]): void;
  /** Release what the producer holds (a worker); it produces nothing afterwards. */
  close(): void;
}
