/**
 * A model run over a sequence as a program loop: one unit per frame, the
 * carried outputs of each frame fed as the next frame's inputs.
 *
 * Idea: like a training loop's weights, the carried state stays where the
 * backend computed it (the session keeps the carried outputs on the device,
 * `sequenceSession`): each unit feeds the state the previous unit returned,
 * disposes the state it consumed, and reads back only the charted output —
 * one number per frame, emitted as the loop's metric. The state crosses to
 * the CPU once, at the end, as the request's outputs. One reused frame
 * tensor is rewritten in place every unit. Trade-off: the loop holds the
 * whole sequence in CPU memory; a stream of frames would need a source that
 * the loop awaits, as live training does.
 */
import {
  disposeAll,
  isDeviceTensor,
  readTensor,
  type Feed,
  type Backend,
  type Fetched,
  type SessionOptions,
  type Tensor,
} from '../runtime/tensor-runtime.ts';
import { outputNumbers } from '../onnx/output-values.ts';
import type { SequencePlan } from '../onnx/sequence.ts';
import type { LoopStep, ModelId } from './program.ts';

export interface SequenceLoopOptions {
  readonly name: string;
  /** The runner's model; its session must keep the carried outputs on the device (`sequenceSession`). */
  readonly model: ModelId;
  readonly plan: SequencePlan;
  /** The samples, cut into `plan.frame`-long frames; a last partial frame is left out. */
  readonly sequence: Float32Array;
  /** Every other input's feed, the carried inputs' first values among them. */
  readonly feeds: Readonly<Record<string, Feed>>;
  /** Bytes of the carried state (resident from the first frame to the last). */
  readonly residentBytes: number;
  /** Bytes alive while one frame runs. */
  readonly peakBytes: number;
  /** Hears, as the loop starts, the backend its session runs on. */
  readonly onStart?: (backend: Backend) => void;
}

/** The session options a sequence model needs: its carried outputs stay on the device. */
export function sequenceSession(plan: SequencePlan): SessionOptions {
  return { deviceOutputs: plan.carried.map((p) => p.output) };
}

/**
 * The number a frame's charted output `name` stands for: its one value, or
 * the mean of several (bool as 0/1; an int64 beyond ±2^53 fails, see `outputNumbers`).
 */
export function frameValue(name: string, t: Tensor): number {
  const values = outputNumbers(name, t);
  if (values.length === 1) return values[0]!;
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i]!;
  return sum / values.length;
}

/**
 * The loop; see the module comment. Emits `<name>.frame` once per frame
 * (the charted output's value); outputs `<name>.<output>` for every model
 * output as the last frame left it (the carried ones read back).
 */
export function sequenceLoop(options: SequenceLoopOptions): LoopStep {
  const { name, model, plan, sequence, feeds } = options;
  const frames = Math.floor(sequence.length / plan.frame);
  return {
    kind: 'loop',
    name,
    models: [model],
    units: frames,
    residentBytes: options.residentBytes,
    peakBytes: options.peakBytes,
    start(ctx) {
      const session = ctx.session(model);
      options.onStart?.(session.backend);
      const frame: Tensor = {
        type: 'float32',
        data: new Float32Array(plan.frame),
        dims: plan.frameDims,
      };
      // The carried inputs' current values; those a unit made are this loop's to dispose.
      const state: Record<string, Feed> = {};
      for (const pair of plan.carried) state[pair.input] = feeds[pair.input]!;
      const made = new Set<Feed>();
      let last: Record<string, Fetched> = {};
      return {
        async unit(index) {
          frame.data.set(sequence.subarray(index * plan.frame, (index + 1) * plan.frame));
          const out = await session.run({ ...feeds, ...state, [plan.input]: frame });
          for (const pair of plan.carried) {
            const previous = state[pair.input]!;
            if (made.delete(previous)) disposeAll([previous]);
            const next = out[pair.output];
            if (next === undefined)
              throw new Error(`the session returned no output ${pair.output} to carry`);
            state[pair.input] = next;
            made.add(next);
          }
          last = out;
          const charted = plan.charted === null ? undefined : out[plan.charted];
          if (plan.charted !== null && charted !== undefined && !isDeviceTensor(charted))
            ctx.emit(`${name}.frame`, frameValue(plan.charted, charted));
        },
        async end() {
          for (const [output, value] of Object.entries(last))
            ctx.output(`${name}.${output}`, await readTensor(value));
        },
        dispose() {
          disposeAll(made);
          made.clear();
        },
      };
    },
  };
}
