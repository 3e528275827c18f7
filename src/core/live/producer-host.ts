/**
 * Where a data engine's producers run. Core cannot start a Web Worker (it
 * imports nothing of the browser), so the engine worker installs a host that
 * puts each producer in a worker of its own, and everywhere else (unit tests,
 * Node) producers run in the calling thread, yielding between rollouts. The
 * engine cannot tell the two apart: both are `Producer`s. A module-level host
 * is the one seam between the catalog and the worker layer; it holds no run
 * state, so runs sharing an engine worker share it safely.
 */
import type { Producer } from '../data/producer';
import { createEnvironmentProducer, type EnvironmentSpec } from './environment';

export interface ProducerHost {
  /** Where its producers run, in words for a log line (e.g. "in this thread"). */
  readonly where: string;
  /** `count` producers of `environment`, indexed 0 … count − 1. */
  producers(environment: EnvironmentSpec, count: number): Producer[];
}

const macrotask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** Producers in the calling thread; they yield a macrotask between rollouts so a cancel gets in. */
export const inProcessProducers: ProducerHost = {
  where: 'in this thread',
  producers: (environment, count) =>
    Array.from({ length: count }, (_, index) =>
      createEnvironmentProducer(environment, index, macrotask),
    ),
};

let current: ProducerHost = inProcessProducers;

/** The host data engines take their producers from. */
export function producerHost(): ProducerHost {
  return current;
}

/** Install `host` for every data engine from now on; returns a function that puts the previous one back. */
export function setProducerHost(host: ProducerHost): () => void {
  const previous = current;
  current = host;
  return () => {
    current = previous;
  };
}
