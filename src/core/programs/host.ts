/**
 * The program host: how a flow's nodes run their programs on the engine.
 *
 * Idea: a node builds its requests and models where its inputs are, then
 * hands them to the host, which runs them through a fresh `ProgramRunner`
 * over the engine's device memory pool for the backend they run on — so
 * admission sees every run of the engine at once — and closes the runner
 * (its sessions) when they end, whatever way they end. The host is also
 * where the engine watches programs: every tick is reported with the node's
 * name (the pool view), and in `parity` mode the host runs each node's
 * requests serially and then interleaved, reports the comparison, and gives
 * the node the serial results, so a whole flow can be parity-checked by
 * running it again. With `shareModels`, nodes of one run that use an equal
 * model share one resident instance (`ModelShelf`), released when the host
 * closes at the run's end; otherwise a node's sessions live as long as its
 * requests.
 */
import type { Backend, NodeBackend, TensorRuntime } from '../runtime/tensor-runtime.ts';
import { compareRuns, type ParityReport } from './parity.ts';
import { DeviceMemoryPool } from './pool.ts';
import type { ModelDef, ProgramRequest, RequestId } from './program.ts';
import { ProgramRunner, type RunMode, type RunReport, type TickReport } from './runner.ts';
import { ModelShelf } from './shared-models.ts';

/** One node's requests over its models. */
export interface ProgramJob {
  /** The node that runs them (named in the pool view and parity report). */
  readonly node: string;
  /** Where the node's sessions run; the host picks that backend's pool. */
  readonly backend: NodeBackend;
  readonly models: readonly ModelDef[];
  readonly requests: readonly ProgramRequest[];
  /** Default `interleaved`. */
  readonly mode?: RunMode;
  /** After every tick: where each request stands (progress, steps per second). */
  onTick?(report: TickReport): void;
  /** Each metric point as it is emitted (what the node streams). */
  onEmit?(request: RequestId, metric: string, value: number): void;
}

/** What nodes run their programs through (`NodeContext.programs`). */
export interface ProgramHost {
  /**
   * True when the host runs each job's requests more than once (a parity
   * check): a node whose steps read a stream keeps what the first pass read
   * and gives the later passes the same, so every pass sees equal inputs.
   */
  readonly replays?: boolean;
  /** Runs the job's requests to their end; the report holds one result per request. */
  run(job: ProgramJob): Promise<RunReport>;
  /** When the run ends: releases the models its nodes shared (hosts that share them). */
  close?(): Promise<void>;
}

/** A pool and the backend it stands for. */
export interface BackendPool {
  readonly backend: Backend;
  readonly pool: DeviceMemoryPool;
}

export interface ProgramHostOptions {
  readonly runtime: TensorRuntime;
  /** The pool of the backend a node's choice runs on. */
  poolFor(backend: NodeBackend): BackendPool;
  /** `run`: each node's mode; `parity`: serial, then interleaved, compared. Default `run`. */
  readonly mode?: 'run' | 'parity';
  /** Every tick of every node's runner. */
  onTick?(node: string, backend: Backend, report: TickReport): void;
  /** In `parity` mode, each node's comparison. */
  onParity?(node: string, report: ParityReport): void;
  /** Lets other work in between ticks (see `ProgramRunnerOptions.yieldNow`). */
  readonly yieldNow?: () => Promise<void>;
  /** Injected clock for units per second; default `Date.now`. */
  readonly now?: () => number;
  /**
   * Share equal models across the nodes of the run (see `ModelShelf`); the
   * host must then be closed when the run ends. Default false: each node's
   * sessions end with its requests.
   */
  readonly shareModels?: boolean;
  /** The run whose nodes use the host: named with its bookings in other tabs' pool views. */
  readonly run?: string;
}

/** A host over `options.runtime`; see the module comment. */
export function createProgramHost(options: ProgramHostOptions): ProgramHost {
  const shelf = options.shareModels === true ? new ModelShelf() : null;
  return {
    ...(shelf && { close: () => shelf.close() }),
    replays: options.mode === 'parity',
    async run(job) {
      const { backend, pool } = options.poolFor(job.backend);
      // Only the serial pass of a parity check streams, so a node emits each point once.
      let streaming = true;
      const runner = new ProgramRunner({
        runtime: options.runtime,
        pool,
        models: job.models,
        ...(shelf && { shared: shelf }),
        origin: { node: job.node, ...(options.run !== undefined && { run: options.run }) },
        ...(options.now && { now: options.now }),
        ...(options.yieldNow && { yieldNow: options.yieldNow }),
        onTick: (report) => {
          job.onTick?.(report);
          options.onTick?.(job.node, backend, report);
        },
        onEmit: (request, metric, value) => {
          if (streaming) job.onEmit?.(request, metric, value);
        },
      });
      try {
        if (options.mode !== 'parity')
          return await runner.run(job.requests, job.mode ?? 'interleaved');
        const serial = await runner.run(job.requests, 'serial');
        streaming = false;
        const interleaved = await runner.run(job.requests, 'interleaved');
        const entries = compareRuns(serial, interleaved);
        options.onParity?.(job.node, {
          identical: entries.every((e) => e.identical),
          entries,
          serial,
          interleaved,
        });
        return serial;
      } finally {
        await runner.close();
      }
    },
  };
}

/**
 * A host for callers that bring no engine (tests, benchmarks): one pool with
 * no practical limit, so admission never defers.
 */
export function unboundedProgramHost(
  runtime: TensorRuntime,
  yieldNow?: () => Promise<void>,
): ProgramHost {
  const pool = new DeviceMemoryPool(Number.MAX_SAFE_INTEGER);
  return createProgramHost({
    runtime,
    poolFor: () => ({ backend: runtime.info.backend, pool }),
    ...(yieldNow && { yieldNow }),
  });
}
