/**
 * A producer: something that makes episodes on request. The engine only ever
 * asks for "`count` episodes of generation `g`" and awaits the answer, so a
 * producer may run in-process (`SimulatorProducer`) or in a Web Worker behind
 * a message port, and the engine cannot tell the difference.
 */
import type { EnvironmentSpec } from './environment-spec';
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

/**
 * Where a data engine's producers run. Core cannot start a Web Worker (it
 * imports nothing of the browser), so the engine worker hands the executor a
 * host that puts each producer in a worker of its own; tests and Node hand it
 * producers in the calling thread. It holds no run state, so runs sharing an
 * engine share one host safely.
 */
export interface ProducerHost {
  /** Where its producers run, in words for a log line (e.g. "in this thread"). */
  readonly where: string;
  /** `count` producers of `environment`, indexed 0 … count − 1. */
  producers(environment: EnvironmentSpec, count: number): Producer[];
}
