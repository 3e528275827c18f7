/**
 * The run service: the engine's front door. It admits at most `maxActive`
 * runs at once (the rest wait, still `queued`), keeps one AbortController
 * per run for cancel, and holds a Web Lock named after each run while it is
 * driven, so other tabs can tell a live run from one whose engine died.
 */
import type { BackendChoice, EngineInfo } from '../../src/core/runtime/tensor-runtime';
import type { RunId, RunStatus } from '../../src/core/run/record';
import { waitingReason } from '../../src/core/run/devices';
import { getRun, updateRun } from '../../src/db/runs';
import { driveRun, type RunDriverOptions } from './run-driver';

export interface RunServiceOptions extends Omit<
  RunDriverOptions,
  'runtimeFor' | 'onProgress' | 'onLive' | 'onStorageFailure' | 'onStorageStall'
> {
  engineInfo(): Promise<EngineInfo>;
  runtimeFor(choice: BackendChoice, info: EngineInfo): ReturnType<RunDriverOptions['runtimeFor']>;
  onProgress(runId: RunId, node: string, done: number, total: number): void;
  onLive?(runId: RunId, node: string, port: string, value: number): void;
  /** A write of the run's record failed and the run is being stopped (see run-ending.ts). */
  onStorageFailure?(runId: RunId, reason: string): void;
  /** The run's writes wait on storage that does not answer (see storage-watch.ts); `null`: they answer again. */
  onStorageStall?(runId: RunId, waitedMs: number | null): void;
  /** Hold `name` while `body` runs (Web Locks in the browser). */
  withLock<T>(name: string, body: () => Promise<T>): Promise<T>;
  maxActive?: number;
}

export function runLockName(runId: RunId): string {
  return `flowbench.run.${runId}`;
}

export class RunService {
  private readonly controllers = new Map<RunId, AbortController>();
  private readonly waiting: (() => void)[] = [];
  private active = 0;

  constructor(private readonly options: RunServiceOptions) {}

  /** Drive a queued run to its end; waits for a free slot first. */
  async start(runId: RunId): Promise<RunStatus> {
    if (this.controllers.has(runId)) throw new Error(`run ${runId} is already being driven here`);
    const controller = new AbortController();
    this.controllers.set(runId, controller);
    try {
      await this.admit();
      if (controller.signal.aborted) return 'cancelled';
      const info = await this.options.engineInfo();
      const missing = await this.missingDevice(runId, info);
      if (missing) return 'queued';
      return await this.options.withLock(runLockName(runId), () =>
        driveRun(runId, controller.signal, {
          ...this.options,
          runtimeFor: (choice) => this.options.runtimeFor(choice, info),
          onProgress: (node, done, total) => this.options.onProgress(runId, node, done, total),
          onLive: (node, port, value) => this.options.onLive?.(runId, node, port, value),
          onStorageFailure: (reason) => this.options.onStorageFailure?.(runId, reason),
          onStorageStall: (waitedMs) => this.options.onStorageStall?.(runId, waitedMs),
        }),
      );
    } finally {
      this.controllers.delete(runId);
      this.release();
    }
  }

  /**
   * A run that requires a device this engine lacks stays queued, with the
   * reason on its record, for an engine that has it; it is not failed.
   */
  private async missingDevice(runId: RunId, info: EngineInfo): Promise<boolean> {
    const { db } = this.options;
    const run = await getRun(db, runId);
    if (run?.status !== 'queued') return false;
    // Every stored run lists `requires` (database version 3 backfilled older rows).
    const missing = run.requires.find((device) => device === 'webgpu' && !info.adapter);
    if (!missing) return false;
    await updateRun(db, runId, { statusReason: waitingReason(missing) });
    return true;
  }

  cancel(runId: RunId): boolean {
    const controller = this.controllers.get(runId);
    controller?.abort();
    return controller !== undefined;
  }

  private admit(): Promise<void> {
    if (this.active < (this.options.maxActive ?? 2)) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve) =>
      this.waiting.push(() => {
        this.active++;
        resolve();
      }),
    );
  }

  private release(): void {
    this.active--;
    this.waiting.shift()?.();
  }
}
