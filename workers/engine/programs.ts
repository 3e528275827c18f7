/**
 * The engine's device memory pools and the program host its runs get.
 *
 * Idea: admission control only works if every run of the engine draws on the
 * same budget, so the pools live here, one per backend (a WebGPU device and
 * the WASM heap are different memories), for as long as the worker lives;
 * each run gets a program host over them. A budget comes from the person's
 * setting, else from the adapter's limits (WebGPU) or a heap budget (WASM),
 * see `defaultPoolBudget`. A new budget takes effect when its pool is idle —
 * a pool's budget never shrinks under a running program. A budget a person
 * sets is kept in a `BudgetStore` (the settings table) and restored when the
 * engine starts, so it survives a reload. With a ledger (`pool-ledger.ts`)
 * each pool shares its budget with the pools of the other tabs' engines, so
 * the whole browser profile admits against one budget. Trade-off: the
 * pools trust the estimates the programs declare; they do not measure the
 * device.
 */
import type {
  AdapterInfo,
  Backend,
  NodeBackend,
  TensorRuntime,
} from '../../src/core/runtime/tensor-runtime';
import {
  createProgramHost,
  defaultPoolBudget,
  DeviceMemoryPool,
  type ParityReport,
  type PoolLedger,
  type ProgramHost,
  type TickReport,
} from '../../src/core/programs';

/** A pool's budget and where it came from. */
export interface PoolBudget {
  readonly backend: Backend;
  readonly bytes: number;
  readonly source: 'setting' | 'default';
}

export const poolBackends: readonly Backend[] = ['webgpu', 'wasm'];

/** Where the budgets a person set are kept across reloads. */
export interface BudgetStore {
  /** The budgets set, in bytes, by backend. */
  load(): Promise<Partial<Record<Backend, number>>>;
  /** Keeps a backend's budget, or forgets it (back to the default) with null. */
  save(backend: Backend, bytes: number | null): Promise<void>;
}

/** One pool per backend for the whole engine; see the module comment. */
export class EnginePools {
  private readonly pools = new Map<Backend, DeviceMemoryPool>();
  private readonly settings = new Map<Backend, number>();

  /**
   * @param adapter the engine's WebGPU adapter, once known (it sizes the WebGPU default).
   * @param store where set budgets are kept; none keeps them for this engine's life only.
   * @param ledger where a backend's pool books its budget beside other engines'; none: this engine has it alone.
   */
  constructor(
    private readonly adapter: () => AdapterInfo | null,
    private readonly store?: BudgetStore,
    private readonly ledger?: (backend: Backend) => PoolLedger,
  ) {}

  /**
   * Applies the budgets kept in the store, as they are there (another tab may
   * have set one, or set one back to its default); a stored value that is
   * not a budget is skipped.
   */
  async restore(): Promise<void> {
    if (this.store === undefined) return;
    const kept = await this.store.load();
    this.settings.clear();
    for (const backend of poolBackends) {
      const bytes = kept[backend];
      if (typeof bytes === 'number' && Number.isFinite(bytes) && bytes > 0)
        this.settings.set(backend, Math.round(bytes));
    }
  }

  /** What a person sets: `setBudget`, then kept in the store so it survives a reload. */
  async chooseBudget(backend: Backend, bytes: number | null): Promise<void> {
    this.setBudget(backend, bytes);
    await this.store?.save(backend, this.settings.get(backend) ?? null);
  }

  /** The pool programs on `backend` draw on. */
  pool(backend: Backend): DeviceMemoryPool {
    const budget = this.budget(backend).bytes;
    const current = this.pools.get(backend);
    if (current !== undefined && (current.budget === budget || current.used > 0)) return current;
    const pool = new DeviceMemoryPool(budget, this.ledger?.(backend) ?? null);
    this.pools.set(backend, pool);
    return pool;
  }

  /** The budget new programs on `backend` get. */
  budget(backend: Backend): PoolBudget {
    const set = this.settings.get(backend);
    return set === undefined
      ? { backend, bytes: defaultPoolBudget(backend, this.adapter()), source: 'default' }
      : { backend, bytes: set, source: 'setting' };
  }

  /** Sets a backend's budget in bytes, or back to its default with null. */
  setBudget(backend: Backend, bytes: number | null): void {
    if (bytes === null) this.settings.delete(backend);
    else if (!Number.isFinite(bytes) || bytes <= 0)
      throw new RangeError(`a pool budget is a positive number of bytes, got ${bytes}`);
    else this.settings.set(backend, Math.round(bytes));
  }

  budgets(): PoolBudget[] {
    return poolBackends.map((backend) => this.budget(backend));
  }
}

export interface EngineHostOptions {
  /** The run the host serves: named with its bookings in other tabs' pool views. */
  readonly runId?: string;
  /** `parity`: each node's requests serially, then interleaved, compared (see `ProgramHost`). */
  readonly mode?: 'run' | 'parity';
  onTick?(node: string, backend: Backend, report: TickReport, final: boolean): void;
  onParity?(node: string, report: ParityReport): void;
  readonly yieldNow?: () => Promise<void>;
}

/** The program host of one run over the engine's pools. */
export function engineProgramHost(
  runtime: TensorRuntime,
  pools: EnginePools,
  options: EngineHostOptions = {},
): ProgramHost {
  const backendOf = (choice: NodeBackend): Backend =>
    runtime.backendFor?.(choice) ?? runtime.info.backend;
  const last = new Map<string, { backend: Backend; report: TickReport }>();
  const host = createProgramHost({
    runtime,
    poolFor: (choice) => {
      const backend = backendOf(choice);
      return { backend, pool: pools.pool(backend) };
    },
    ...(options.mode && { mode: options.mode }),
    ...(options.yieldNow && { yieldNow: options.yieldNow }),
    ...(options.runId !== undefined && { run: options.runId }),
    // A run's nodes share equal models; the run driver closes the host when the run ends.
    shareModels: true,
    onTick: (node, backend, report) => {
      last.set(node, { backend, report });
      options.onTick?.(node, backend, report, false);
    },
    onParity: (node, report) => options.onParity?.(node, report),
  });
  return {
    close: () => host.close?.() ?? Promise.resolve(),
    ...(host.replays === true && { replays: true }),
    async run(job) {
      try {
        return await host.run(job);
      } finally {
        // The node's last tick, marked final, so a watcher keeps how it ended.
        const seen = last.get(job.node);
        if (seen !== undefined) options.onTick?.(job.node, seen.backend, seen.report, true);
        last.delete(job.node);
      }
    },
  };
}
