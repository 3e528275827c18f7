/**
 * Synthetic programs for the runner's unit tests: steps that declare bytes
 * and record what runs, over a runtime that loads no model. Admission and
 * scheduling are bookkeeping over declared bytes, so these tests need no
 * onnxruntime (runner.test.ts covers the runner with real sessions).
 */
import type { TensorRuntime } from '../runtime/tensor-runtime.ts';
import type { BookingRequest, ExternalBooking, PoolLedger } from './ledger.ts';
import { DeviceMemoryPool } from './pool.ts';
import {
  loop,
  requestId,
  type LoopStep,
  type ProgramRequest,
  type ProgramStep,
} from './program.ts';
import { ProgramRunner, type TickReport } from './runner.ts';

/** A runtime for programs that load no model. */
export const noModels: TensorRuntime = {
  info: { backend: 'wasm', adapter: null },
  createSession: () => Promise.reject(new Error('these programs load no model')),
};

/** What synthetic loops did: units run (`<id>:<unit>`), and lifecycle calls. */
export interface Events {
  log: string[];
  starts: number;
  ends: number;
  disposals: number;
}

export function events(): Events {
  return { log: [], starts: 0, ends: 0, disposals: 0 };
}

/** A loop `train` of `units` that logs `<id>:<unit>`, emits `loss` and runs `during` in each unit. */
export function trainLoop(
  id: string,
  e: Events,
  o: { units: number; resident: number; peak: number; during?: (unit: number) => void },
): LoopStep {
  return loop({
    name: 'train',
    units: o.units,
    residentBytes: o.resident,
    peakBytes: o.peak,
    start: (ctx) => {
      e.starts++;
      return {
        unit: (i) => {
          e.log.push(`${id}:${i}`);
          ctx.emit('loss', 1 / (i + 1));
          o.during?.(i);
        },
        end: () => {
          e.ends++;
        },
        dispose: () => {
          e.disposals++;
        },
      };
    },
  });
}

export const request = (
  id: string,
  steps: ProgramStep[],
  signal?: AbortSignal,
): ProgramRequest => ({
  id: requestId(id),
  program: { steps },
  ...(signal === undefined ? {} : { signal }),
});

/** A runner over a fresh pool, recording ticks and sleeps, with a hand-driven clock. */
export function setup(budget: number) {
  const pool = new DeviceMemoryPool(budget);
  const ticks: TickReport[] = [];
  const sleeps: number[] = [];
  let clock = 0;
  const runner = new ProgramRunner({
    runtime: noModels,
    pool,
    models: [],
    now: () => clock,
    sleep: (ms) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
    onTick: (t) => ticks.push(t),
  });
  return {
    pool,
    ticks,
    sleeps,
    runner,
    advanceClock: (ms: number) => (clock += ms),
  };
}

/**
 * A ledger in memory, for one engine beside bookings of others the test
 * sets (`others`, and whether they move: `active`): it grants what fits
 * beside them and keeps every booking and release it was asked for.
 */
export function memoryLedger(others: ExternalBooking[] = []) {
  const booked = new Map<string, BookingRequest>();
  const asked: string[] = [];
  let n = 0;
  const ledger: PoolLedger & {
    others: ExternalBooking[];
    booked: typeof booked;
    asked: string[];
    /** Whether the others moved lately (see `PoolLedger.othersActive`). */
    active: boolean;
  } = {
    booked,
    asked,
    active: false,
    others,
    version: 0,
    book(request, budget) {
      asked.push(`book ${request.holder} ${request.kind} ${request.bytes}`);
      let sum = request.bytes;
      for (const b of [...booked.values(), ...others]) sum += b.bytes;
      if (sum > budget) return Promise.resolve(null);
      const id = String(++n);
      booked.set(id, request);
      return Promise.resolve(id);
    },
    release(id) {
      if (booked.delete(id)) asked.push(`release ${id}`);
    },
    nextChange: () => new Promise(() => undefined),
    othersActive: () => ledger.active,
    moved: () => undefined,
  };
  return ledger;
}
