/**
 * ProgramRunner: runs requests' programs over shared resident models, in
 * `serial` or `interleaved` mode, under admission control.
 *
 * Idea: the runner drives *ticks*. In a tick, `interleaved` advances every
 * live request by one unit, in request order (round-robin); `serial`
 * advances only the first unfinished request, so each runs to completion
 * before the next. Units of one tick run one after another, never at once,
 * and a unit sees only its own request's values, so the two modes feed every
 * session the same inputs and give bit-identical outputs (`parityCheck`
 * proves it per run). Models load on first use and stay resident until
 * `close()` (a run's sessions live as long as the run). Admission: what
 * can never fit fails before the first tick, with the numbers; what cannot
 * fit yet waits (see `RequestRun.admitStep`), and the runner sleeps until the
 * pool changes or a retry interval passes, instead of spinning; when for
 * `deadlockTicks` ticks no request progresses, nobody else touches the pool
 * and no unit runs anywhere on it (nor, on a shared pool, did another
 * engine move lately), the stuck requests fail with who holds what. Time
 * and sleeping are injected, so tests run without clocks.
 * Trade-off: one unit at a time leaves a GPU's parallelism across requests
 * unused, in exchange for determinism and simple accounting.
 */
import type { ModelSession, TensorRuntime } from '../runtime/tensor-runtime.ts';
import { messageOf, type ProgramError, programError } from './errors.ts';
import { formatBytes, type DeviceMemoryPool, type Holder, type PoolSnapshot } from './pool.ts';
import { DATASET_SHARE, datasetDeviceBytes, loadsGatheringModel } from './loop-dataset.ts';
import type { ModelDef, ModelId, ProgramRequest, ProgramStep, RequestId } from './program.ts';
import type { LoadedModel, SharedModels } from './shared-models.ts';
import {
  RequestRun,
  type RequestProgress,
  type RequestResult,
  type RunnerServices,
} from './request-run.ts';

/** `serial`: each request to completion in turn; `interleaved`: one unit per request per tick. */
export type RunMode = 'serial' | 'interleaved';

/** What the runner reports after every tick. */
export interface TickReport {
  readonly tick: number;
  readonly mode: RunMode;
  readonly pool: PoolSnapshot;
  readonly requests: readonly RequestProgress[];
}

/** The outcome of one `run`. */
export interface RunReport {
  readonly mode: RunMode;
  /** Ticks the run took. */
  readonly ticks: number;
  /** One per request, in request order. */
  readonly results: readonly RequestResult[];
}

export interface ProgramRunnerOptions {
  readonly runtime: TensorRuntime;
  readonly pool: DeviceMemoryPool;
  /** The models programs may use, loaded on first use. */
  readonly models: readonly ModelDef[];
  /**
   * Milliseconds, for units per second; default `performance.now`, which counts fractions of
   * one: a warm loop's first unit can take less, and `Date.now` then saw no time pass (no rate).
   */
  readonly now?: () => number;
  /** Waits between ticks in which nothing progressed; default `setTimeout`. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Longest wait between such ticks, in ms; default 50. */
  readonly retryMs?: number;
  /** Ticks without any progress that make a deadlock; default 3. */
  readonly deadlockTicks?: number;
  /** Called after every tick (the UI's pool and progress view). */
  readonly onTick?: (report: TickReport) => void;
  /**
   * Awaited after every tick that progressed, so a host can let other work
   * (a cancel message) in; default none (the runner yields only when it waits).
   */
  readonly yieldNow?: () => Promise<void>;
  /** Called as each metric point is emitted (a node streams it live). */
  readonly onEmit?: (request: RequestId, metric: string, value: number) => void;
  /**
   * Models shared with the other runners of a run: an equal model loaded
   * before is used, not loaded again, and what this runner loads is kept
   * there (and released there, not by `close()`).
   */
  readonly shared?: SharedModels;
  /** The run and node the requests work for: named with their bookings in other tabs' views. */
  readonly origin?: { readonly run?: string; readonly node?: string };
}

const defaultSleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

/** Runs programs over resident models; see the module comment. */
export class ProgramRunner {
  private readonly models: ReadonlyMap<ModelId, { def: ModelDef; holder: Holder }>;
  private readonly loaded = new Map<ModelId, LoadedModel & { readonly shared: boolean }>();
  private readonly pool: DeviceMemoryPool;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly retryMs: number;
  private readonly deadlockTicks: number;
  private running = false;
  private closed = false;

  constructor(private readonly options: ProgramRunnerOptions) {
    const models = new Map<ModelId, { def: ModelDef; holder: Holder }>();
    for (const def of options.models) {
      if (models.has(def.id)) throw new RangeError(`model ${def.id} is defined twice`);
      models.set(def.id, { def, holder: { ...options.origin, name: def.label ?? def.id } });
    }
    this.models = models;
    this.pool = options.pool;
    this.now = options.now ?? (() => performance.now());
    this.sleep = options.sleep ?? defaultSleep;
    this.retryMs = options.retryMs ?? 50;
    this.deadlockTicks = Math.max(1, options.deadlockTicks ?? 3);
  }

  /** The pool as the UI shows it. */
  snapshot(): PoolSnapshot {
    return this.pool.snapshot();
  }

  /** Runs `requests` to the end (each ok, error or cancelled) in `mode`. */
  async run(requests: readonly ProgramRequest[], mode: RunMode): Promise<RunReport> {
    if (this.closed) throw new Error('ProgramRunner: closed');
    if (this.running) throw new Error('ProgramRunner: one run at a time');
    const ids = new Set<RequestId>();
    for (const r of requests) {
      if (ids.has(r.id)) throw new RangeError(`request ${r.id} appears twice`);
      ids.add(r.id);
    }
    this.running = true;
    const services: RunnerServices = {
      pool: this.pool,
      now: this.now,
      isResident: (id) =>
        this.loaded.has(id) || (this.options.shared?.find(this.model(id).def) ?? null) !== null,
      modelBytes: (id) => this.model(id).def.residentBytes,
      modelLabel: (id) => this.model(id).holder.name,
      loadModel: (id) => this.loadModel(id),
      residentModelBytes: () => this.residentModelBytes(),
      datasetBytes: (step) => this.datasetBytes(step),
      onEmit: this.options.onEmit,
      origin: this.options.origin,
    };
    const runs = requests.map((r) => new RequestRun(r, services));
    let tick = 0;
    try {
      for (const run of runs) {
        const problem = this.check(run.request);
        if (problem !== null) await run.fail(problem);
      }
      let stalled = 0;
      // The pool's version when the last tick ended: a change since means someone moved.
      let seen = this.pool.version;
      for (;;) {
        const live = runs.filter((r) => r.result === null);
        if (live.length === 0) break;
        const active = mode === 'serial' ? live.slice(0, 1) : live;
        let progressed = false;
        for (const run of active) if ((await run.advance()) === 'progressed') progressed = true;
        tick++;
        this.options.onTick?.({
          tick,
          mode,
          pool: this.pool.snapshot(),
          requests: runs.map((r) => r.progress()),
        });
        const moved = this.pool.version !== seen;
        seen = this.pool.version;
        if (progressed) {
          stalled = 0;
          await this.options.yieldNow?.();
          continue;
        }
        // Someone outside this run moved in the pool, is inside a unit now
        // (holds a step's peak), or another engine sharing the budget moved
        // lately: not stuck, but nothing for us to do yet.
        const busy = this.pool.bytesOf('activation') > 0 || this.pool.othersActive();
        stalled = moved || busy ? 0 : stalled + 1;
        if (stalled >= this.deadlockTicks) {
          const error = this.deadlock(active, stalled);
          for (const run of active) await run.fail(error);
          stalled = 0;
          continue;
        }
        await Promise.race([this.pool.nextChange(), this.sleep(this.retryMs)]);
      }
    } finally {
      // Whatever happened above, nothing this run's requests held survives it.
      for (const run of runs) {
        if (run.result === null)
          await run.fail(programError('step-failed', 'the runner stopped before it finished'));
        this.pool.releaseAll(run.holder);
      }
      this.running = false;
    }
    return { mode, ticks: tick, results: runs.map((r) => r.result as RequestResult) };
  }

  /** Releases every session and model reservation. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    // Shared models are the run's: released when it ends, not with this runner.
    const loaded = [...this.loaded.values()].filter((m) => !m.shared);
    this.loaded.clear();
    for (const m of loaded) this.pool.release(m.hold);
    await Promise.allSettled(loaded.map((m) => m.session.release()));
  }

  private residentModelBytes(): number {
    let sum = 0;
    for (const m of this.loaded.values()) sum += m.hold.bytes;
    return sum;
  }

  /** Bytes `step`'s dataset holds on the device while it runs here (loop-dataset.ts). */
  private datasetBytes(step: ProgramStep): number {
    if (step.kind !== 'loop' || step.dataset === undefined) return 0;
    const def = this.models.get(step.dataset.model)?.def;
    return def === undefined ? 0 : datasetDeviceBytes(step.dataset, def, this.options.runtime);
  }

  private model(id: ModelId): { def: ModelDef; holder: Holder } {
    const model = this.models.get(id);
    if (model === undefined) throw programError('invalid-program', `unknown model ${id}`);
    return model;
  }

  /** A model's session, loaded (its bytes held) on first use; null if it does not fit now. */
  private async loadModel(id: ModelId): Promise<ModelSession | null> {
    const loaded = this.loaded.get(id);
    if (loaded !== undefined) return loaded.session;
    const { def, holder } = this.model(id);
    const load = async (): Promise<LoadedModel | null> => {
      const label = `model ${holder.name}`;
      const hold = await this.pool.hold(holder, 'model', def.residentBytes, label);
      if (hold === null) return null;
      try {
        const { runtime } = this.options;
        const choice = def.backend ?? 'auto';
        const gpuModel = loadsGatheringModel(def, runtime) ? def.gatheringModel : undefined;
        const session = await runtime.createSession(gpuModel ?? def.model, choice, def.session);
        return { session, hold };
      } catch (error) {
        this.pool.release(hold);
        throw programError(
          'model-load-failed',
          `${label} could not load on ${def.backend ?? 'auto'}: ${messageOf(error)}`,
        );
      }
    };
    const shared = this.options.shared;
    const model = shared ? await shared.acquire(def, this.pool, load) : await load();
    if (model === null) return null;
    this.loaded.set(id, { ...model, shared: shared !== undefined });
    return model.session;
  }

  /**
   * Fails a request before it runs when a step names an unknown model, has no
   * units, or can never fit: its peak, its loop's resident bytes and dataset
   * and every model resident by then, together, exceed the budget.
   */
  private check(request: ProgramRequest): ProgramError | null {
    const budget = this.pool.budget;
    const resident = new Set(this.loaded.keys());
    for (const step of request.program.steps) {
      for (const id of step.models) {
        if (!this.models.has(id))
          return programError('invalid-program', `${step.name}: unknown model ${id}`);
        resident.add(id);
      }
      if (step.kind === 'loop' && (!Number.isSafeInteger(step.units) || step.units < 1))
        return programError('invalid-program', `${step.name}: a loop needs ≥ 1 unit`);
      const models = [...resident].reduce(
        (sum, id) => sum + (this.models.get(id)?.def.residentBytes ?? 0),
        0,
      );
      const state = step.kind === 'loop' ? step.residentBytes : 0;
      const dataset = this.datasetBytes(step);
      const needs = step.peakBytes + state + dataset + models;
      if (needs <= budget) continue;
      const parts = [`${formatBytes(step.peakBytes)} peak`];
      if (state > 0) parts.push(`${formatBytes(state)} resident (weights, optimizer state)`);
      if (dataset > 0) parts.push(`${formatBytes(dataset)} ${DATASET_SHARE}`);
      if (models > 0) parts.push(`${formatBytes(models)} of resident models`);
      const total = parts.length > 1 ? ` = ${formatBytes(needs)}` : '';
      return programError(
        'infeasible',
        `${step.name}: step needs ${parts.join(' + ')}${total}, pool is ${formatBytes(budget)}`,
      );
    }
    return null;
  }

  private deadlock(stuck: readonly RequestRun[], ticks: number): ProgramError {
    const who = stuck.map((run) => {
      const holds = this.pool.holdsOf(run.holder);
      const holding =
        holds.length === 0
          ? 'holds nothing'
          : `holds ${holds.map((h) => `${formatBytes(h.bytes)} (${h.label})`).join(', ')}`;
      const wait = run.wait;
      const waiting = wait === null ? '' : ` and waits (${wait.label})`;
      return `${run.id} ${holding}${waiting}`;
    });
    const ours = new Set<Holder>([
      ...stuck.map((r) => r.holder),
      ...[...this.models.values()].map((m) => m.holder),
    ]);
    const others = this.pool.allHolds().filter((h) => !ours.has(h.holder));
    if (others.length > 0) {
      const held = others.map((h) => `${h.holder.name} holds ${formatBytes(h.bytes)} (${h.label})`);
      who.push(`outside this run: ${held.join(', ')}`);
    }
    const elsewhere = this.pool.snapshot().otherBookings;
    if (elsewhere.length > 0) {
      const held = elsewhere.map((b) => `${b.holder} holds ${formatBytes(b.bytes)} (${b.label})`);
      who.push(`in other tabs: ${held.join(', ')}`);
    }
    const s = this.pool.snapshot();
    return programError(
      'deadlock',
      `deadlock: no request progressed for ${ticks} ticks; ${who.join('; ')}. ` +
        `Pool ${formatBytes(s.budget)}: ${formatBytes(s.models)} resident models, ` +
        `${formatBytes(s.reserved)} reserved, ${formatBytes(s.inUse)} in use, ` +
        (s.others > 0 ? `${formatBytes(s.others)} booked by other tabs, ` : '') +
        `${formatBytes(s.free)} free.`,
    );
  }
}
