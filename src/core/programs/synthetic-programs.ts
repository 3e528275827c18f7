/**
 * Synthetic programs for the runner's unit tests: steps that declare bytes
 * and record what runs, over a runtime that loads no model. Admission and
 * scheduling are bookkeeping over declared bytes, so these tests need no
 * onnxruntime (runner.test.ts covers the runner with real sessions).
 */
import type { TensorRuntime } from '../runtime/tensor-runtime.ts';
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
