/**
 * One request's way through its program: a cursor that the runner advances
 * by one unit per call.
 *
 * Idea: every unit goes through the same gate — its models resident, its
 * loop's state reserved, its peak admitted — and every exit goes through one
 * door (`finish`), which disposes what the loop made and gives back every
 * byte the request holds, whether it ended in success, error or cancel. A
 * request that cannot get its bytes *now* says what it waits for and is
 * retried on a later tick; one whose bytes could *never* be free (more than
 * the budget less what cannot be released before it finishes) fails at once
 * with the numbers. Trade-off: a loop keeps its reservation from its first
 * unit to its last (its weights stay resident), so a loop only starts when
 * its first peak fits beside it (`admitStep`); that avoids deadlock among
 * one runner's requests, and the runner still detects the ones it cannot
 * avoid (another run on the same pool) and fails them fast.
 */
import type { ModelSession } from '../runtime/tensor-runtime.ts';
import {
  isStepError,
  messageOf,
  type ProgramError,
  programError,
  type ProgramErrorCode,
} from './errors.ts';
import { DATASET_SHARE } from './loop-dataset.ts';
import { formatBytes, type DeviceMemoryPool, type Hold, type Holder, type Wait } from './pool.ts';
import type {
  LoopBody,
  ModelId,
  ProgramRequest,
  ProgramStep,
  ProgramValue,
  RequestId,
  StepContext,
} from './program.ts';
import { FlowbenchError } from '../errors';

export type RequestStatus = 'ok' | 'error' | 'cancelled';

/** What a request produced and how it ended. */
export interface RequestResult {
  readonly request: RequestId;
  readonly status: RequestStatus;
  readonly error: { readonly code: ProgramErrorCode; readonly message: string } | null;
  /** Every output by name, as last set. */
  readonly outputs: Readonly<Record<string, ProgramValue>>;
  /** Every metric series by name, in emission order. */
  readonly metrics: Readonly<Record<string, readonly number[]>>;
  /** Units run in all (a component step is one). */
  readonly units: number;
}

/** Where a request stands, for the UI (steps done / total, steps per second, why it waits). */
export interface RequestProgress {
  readonly request: RequestId;
  readonly state: 'queued' | 'running' | 'waiting' | RequestStatus;
  readonly step: string | null;
  readonly stepIndex: number;
  readonly steps: number;
  /** Units done of the current step. */
  readonly unitsDone: number;
  /** Units of the current step (1 for a component step). */
  readonly units: number;
  /** Units per second of the current loop so far, by the injected clock. */
  readonly unitsPerSecond: number | null;
  readonly waitingFor: Wait | null;
}

/** What the runner lends a request. */
export interface RunnerServices {
  readonly pool: DeviceMemoryPool;
  now(): number;
  /** Whether the model is loaded (its bytes held by the runner). */
  isResident(id: ModelId): boolean;
  /** Bytes a model holds once loaded. */
  modelBytes(id: ModelId): number;
  modelLabel(id: ModelId): string;
  /** The model's session, loading it (and holding its bytes) if needed; null if it does not fit now. */
  loadModel(id: ModelId): Promise<ModelSession | null>;
  /** Bytes of this runner's resident models (released only when it closes). */
  residentModelBytes(): number;
  /** Bytes a loop's dataset holds on the device while it runs here (loop-dataset.ts); else 0. */
  datasetBytes(step: ProgramStep): number;
  /** Hears every metric point as it is emitted. */
  readonly onEmit?: ((request: RequestId, metric: string, value: number) => void) | undefined;
  /** The run and node the requests work for (told to other engines with their bookings). */
  readonly origin?: Omit<Holder, 'name'> | undefined;
}

/** `progressed`: a unit ran or the request ended; `waiting`: deferred to a later tick. */
export type Advance = 'progressed' | 'waiting' | 'finished';

/** What a step's per-unit peak is held as, in the pool view. */
const peakLabelOf = (step: { readonly name: string }): string => `${step.name}: step peak`;

interface ActiveLoop {
  readonly body: LoopBody;
  readonly startedAt: number;
  /** Its weights and optimizer state (on a shared pool, and its units' peak). */
  readonly state: Hold;
  /** Its models' sessions, loaded before it started and resident until the runner closes. */
  readonly sessions: ReadonlyMap<ModelId, ModelSession>;
  /** What each unit's peak is held as (named once, not every unit). */
  readonly peakLabel: string;
  unit: number;
}

/** A request in flight. */
export class RequestRun {
  readonly holder: Holder;
  private stepIndex = 0;
  private loop: ActiveLoop | null = null;
  private readonly outputs = new Map<string, ProgramValue>();
  private readonly metrics = new Map<string, number[]>();
  private unitsRun = 0;
  private waitingFor: Wait | null = null;
  private started = false;
  private ended: RequestResult | null = null;

  constructor(
    readonly request: ProgramRequest,
    private readonly services: RunnerServices,
  ) {
    this.holder = { ...services.origin, name: request.id };
  }

  get id(): RequestId {
    return this.request.id;
  }

  /** The result once finished, else null. */
  get result(): RequestResult | null {
    return this.ended;
  }

  /** What the request waits for, if it waits. */
  get wait(): Wait | null {
    return this.waitingFor;
  }

  /** Advances by at most one unit. */
  async advance(): Promise<Advance> {
    if (this.ended !== null) return 'finished';
    this.started = true;
    const step = this.request.program.steps[this.stepIndex];
    if (this.request.signal?.aborted === true) {
      const where = step === undefined ? 'the end' : this.describe(step);
      await this.finish('cancelled', new FlowbenchError('cancelled', { where }));
      return 'progressed';
    }
    if (step === undefined) {
      await this.finish('ok', null);
      return 'progressed';
    }
    try {
      return await this.advanceStep(step);
    } catch (error) {
      const failure = isStepError(error)
        ? error
        : programError('step-failed', `${this.describe(step)}: ${messageOf(error)}`);
      await this.finish('error', failure);
      return 'progressed';
    }
  }

  /**
   * admitStep: everything the next unit needs that is not held yet — models
   * to load, the loop's state (and its dataset where it stays on the
   * device), the unit's peak — must fit *together*, or
   * nothing is taken. Reserving a loop's state only with room for its first
   * peak means the request that took bytes last can always run its unit,
   * so requests of one runner defer rather than deadlock. On a shared pool
   * the loop books its first peak with its state, as an allowance every
   * later unit draws from, so a unit needs nothing more.
   */
  private admitStep(step: ProgramStep): Wait | null {
    const { pool } = this.services;
    const parts: string[] = [];
    let bytes = 0;
    // Asked before every unit: a step of one model (a training loop's) needs no set to count it once.
    for (const id of step.models.length === 1 ? step.models : new Set(step.models)) {
      if (this.services.isResident(id)) continue;
      const model = this.services.modelBytes(id);
      bytes += model;
      parts.push(`${formatBytes(model)} model ${this.services.modelLabel(id)}`);
    }
    if (step.kind === 'loop' && this.loop === null) {
      bytes += step.residentBytes;
      parts.push(`${formatBytes(step.residentBytes)} weights and optimizer state`);
      const dataset = this.services.datasetBytes(step);
      if (dataset > 0) {
        bytes += dataset;
        parts.push(`${formatBytes(dataset)} ${DATASET_SHARE}`);
      }
    }
    const allowance = pool.shared && step.kind === 'loop' && this.loop !== null;
    if (!allowance) bytes += step.peakBytes;
    if (bytes <= pool.free) return null;
    if (!allowance) parts.push(`${formatBytes(step.peakBytes)} step peak`);
    const total = parts.length > 1 ? ` = ${formatBytes(bytes)}` : '';
    const others = pool.others > 0 ? `; other tabs hold ${formatBytes(pool.others)}` : '';
    return { bytes, label: `${step.name}: needs ${parts.join(' + ')}${total}${others}` };
  }

  private async advanceStep(step: ProgramStep): Promise<Advance> {
    const { pool } = this.services;
    const wait = this.admitStep(step);
    if (wait !== null) return this.defer(wait);
    this.waitingFor = null;
    pool.clearWaiting(this.holder);
    // Loading a model or starting a loop awaits; another run on the same pool
    // may take bytes meanwhile, so every hold is still checked and, if it
    // fails, the request defers with what it needs now. A running loop's
    // sessions were loaded before its first unit: its later units take them
    // as they are (a unit per step is the hot path of a training run).
    let sessions = this.loop?.sessions;
    if (sessions === undefined) {
      const loaded = new Map<ModelId, ModelSession>();
      for (const id of step.models) {
        const session = await this.services.loadModel(id);
        if (session === null) return this.deferNow(step, false);
        loaded.set(id, session);
      }
      sessions = loaded;
    }
    let started = false;
    if (step.kind === 'loop' && this.loop === null) {
      // Shared: the reservation takes the units' peak too (see admitStep).
      const state = pool.shared
        ? await pool.hold(
            this.holder,
            'state',
            step.residentBytes + step.peakBytes,
            `${step.name}: weights, optimizer state and a step's peak`,
          )
        : pool.tryHold(
            this.holder,
            'state',
            step.residentBytes,
            `${step.name}: weights and optimizer state`,
          );
      if (state === null) return this.deferNow(step, false);
      // Its dataset, where it stays on the device: a hold of its own, named in the pool view.
      const datasetBytes = this.services.datasetBytes(step);
      if (datasetBytes > 0) {
        const label = `${step.name}: ${DATASET_SHARE}`;
        const dataset = pool.shared
          ? await pool.hold(this.holder, 'state', datasetBytes, label)
          : pool.tryHold(this.holder, 'state', datasetBytes, label);
        if (dataset === null) {
          pool.release(state);
          return this.deferNow(step, false);
        }
      }
      const body = await step.start(this.context(step, sessions));
      this.loop = {
        body,
        startedAt: this.services.now(),
        unit: 0,
        state,
        sessions,
        peakLabel: peakLabelOf(step),
      };
      started = true;
    }
    const peakLabel = this.loop?.peakLabel ?? peakLabelOf(step);
    const peak = !pool.shared
      ? pool.tryHold(this.holder, 'activation', step.peakBytes, peakLabel)
      : this.loop !== null
        ? pool.tryHold(this.holder, 'activation', step.peakBytes, peakLabel, this.loop.state)
        : await pool.hold(this.holder, 'activation', step.peakBytes, peakLabel);
    if (peak === null) return this.deferNow(step, started);
    try {
      if (step.kind === 'component') await step.run(this.context(step, sessions));
      else await this.loop?.body.unit(this.loop.unit);
    } catch (error) {
      if (isStepError(error)) throw error;
      const backends = [...new Set([...sessions.values()].map((s) => s.backend))].join(', ');
      const on = backends === '' ? '' : ` on ${backends}`;
      throw programError('step-failed', `${this.describe(step)}${on}: ${messageOf(error)}`);
    } finally {
      pool.release(peak);
    }
    this.unitsRun++;
    if (step.kind === 'loop' && this.loop !== null) {
      this.loop.unit++;
      if (this.loop.unit < step.units && this.loop.body.done?.() !== true) return 'progressed';
      const { body } = this.loop;
      await body.end?.();
      this.loop = null;
      await body.dispose?.();
      for (const hold of pool.holdsOf(this.holder)) if (hold.kind === 'state') pool.release(hold);
    }
    this.stepIndex++;
    if (this.stepIndex === this.request.program.steps.length) await this.finish('ok', null);
    return 'progressed';
  }

  /** Defers `step` with what it needs now; `progressed` when it started a loop first. */
  private deferNow(step: ProgramStep, progressed: boolean): Advance {
    const waiting = this.defer(
      this.admitStep(step) ?? { bytes: step.peakBytes, label: `${step.name}: step peak` },
    );
    return progressed ? 'progressed' : waiting;
  }

  /** Waits for `wait`, unless it could never be granted. */
  private defer(wait: Wait): 'waiting' {
    const { pool } = this.services;
    const own = pool.heldBy(this.holder);
    const models = this.services.residentModelBytes();
    const ever = pool.budget - own - models;
    if (wait.bytes > ever)
      throw programError(
        'infeasible',
        `${wait.label}, but at most ${formatBytes(Math.max(0, ever))} of the ` +
          `${formatBytes(pool.budget)} pool can ever be free to it (${formatBytes(models)} held by ` +
          `resident models, ${formatBytes(own)} by ${this.id} itself)`,
      );
    this.waitingFor = wait;
    pool.setWaiting(this.holder, wait);
    return 'waiting';
  }

  /** Ends the request now (cancel, deadlock, a check that failed before it ran). */
  async fail(error: ProgramError): Promise<void> {
    if (this.ended !== null) return;
    await this.finish(error.code === 'cancelled' ? 'cancelled' : 'error', error);
  }

  /** The one exit: dispose the loop, give back every byte, record the result. */
  private async finish(status: RequestStatus, error: ProgramError | null): Promise<void> {
    const body = this.loop?.body;
    this.loop = null;
    let failure = error;
    try {
      await body?.dispose?.();
    } catch (disposeError) {
      failure ??= programError('step-failed', `dispose: ${messageOf(disposeError)}`);
    }
    this.services.pool.releaseAll(this.holder);
    this.waitingFor = null;
    this.ended = {
      request: this.id,
      status: failure !== null && status === 'ok' ? 'error' : status,
      error: failure === null ? null : { code: failure.code, message: failure.message },
      outputs: Object.fromEntries(this.outputs),
      metrics: Object.fromEntries(this.metrics),
      units: this.unitsRun,
    };
  }

  private describe(step: ProgramStep): string {
    return step.kind === 'loop'
      ? `${step.name} (unit ${(this.loop?.unit ?? 0) + 1} of ${step.units})`
      : step.name;
  }

  private context(step: ProgramStep, sessions: ReadonlyMap<ModelId, ModelSession>): StepContext {
    const signal = this.request.signal ?? new AbortController().signal;
    return {
      request: this.id,
      step: step.name,
      signal,
      session: (id) => {
        const session = sessions.get(id);
        if (session === undefined)
          throw programError('invalid-program', `${step.name} uses model ${id} undeclared`);
        return session;
      },
      read: (name) => {
        const value = this.outputs.get(name);
        if (value === undefined)
          throw programError('invalid-program', `${step.name} reads ${name}, which no step set`);
        return value;
      },
      output: (name, value) => {
        this.outputs.set(name, value);
      },
      emit: (metric, value) => {
        let series = this.metrics.get(metric);
        if (series === undefined) {
          series = [];
          this.metrics.set(metric, series);
        }
        series.push(value);
        this.services.onEmit?.(this.id, metric, value);
      },
    };
  }

  /** Where the request stands. */
  progress(): RequestProgress {
    const steps = this.request.program.steps;
    const step = steps[this.stepIndex];
    // One literal, no spread: the runner asks for it after every unit, and an
    // object spread followed by more properties costs microseconds a call in V8.
    if (this.ended !== null)
      return {
        request: this.id,
        step: step?.name ?? null,
        stepIndex: this.stepIndex,
        steps: steps.length,
        state: this.ended.status,
        unitsDone: 0,
        units: 0,
        unitsPerSecond: null,
        waitingFor: null,
      };
    const units = step?.kind === 'loop' ? step.units : 1;
    const done = this.loop?.unit ?? 0;
    const seconds = this.loop === null ? 0 : (this.services.now() - this.loop.startedAt) / 1000;
    return {
      request: this.id,
      step: step?.name ?? null,
      stepIndex: this.stepIndex,
      steps: steps.length,
      state: !this.started ? 'queued' : this.waitingFor !== null ? 'waiting' : 'running',
      unitsDone: done,
      units,
      unitsPerSecond: seconds > 0 ? done / seconds : null,
      waitingFor: this.waitingFor,
    };
  }
}
