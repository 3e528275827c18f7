/**
 * The train loop that runs many steps per call, against a stand-in for the
 * model worker's loop: what each message carries (its own copy of every
 * batch, Adam's step count, one step first and then as many as the pace
 * says), what each unit emits, how skipped units, an early end and a
 * cancel read to the runner, and how a loop that resumes a trained model's
 * optimizer state counts on and reads that state back.
 */
import { describe, expect, it } from 'vitest';
import { buildMlpTrainStep } from '../onnx/mlp';
import type { LoopStepFeeds, StepLoop, StepLoopResult, Tensor } from '../runtime/tensor-runtime';
import { LoopPace } from './loop-pace';
import type { BatchBuffers } from './batch-copies';
import { aheadLoopBody, type AheadLoopParts, type MlpBatch } from './mlp-loop-ahead';
import { requestId, type StepContext } from './program';

const step = buildMlpTrainStep(
  { inputSize: 2, hidden: [3], outputSize: 2, activation: 'relu' },
  { optimizer: 'adam', loss: 'softmax_cross_entropy' },
);
const adamStep = step.inputs.adam!.step;

/** Batches written into one pair of buffers, as `classifierBatches` does: x holds [i, i]. */
function source(special: Record<number, 'skip' | 'end'> = {}) {
  const x = new Float32Array(2);
  const y = new Float32Array(2);
  return (i: number): MlpBatch => {
    const kind = special[i];
    if (kind !== undefined) return kind;
    x.fill(i);
    return {
      x: { type: 'float32', data: x, dims: [1, 2] },
      y: { type: 'float32', data: y, dims: [1, 2] },
    };
  };
}

/**
 * A loop whose "loss" of a step is its batch's first feature; `cancelAfter`
 * steps in, the run is cancelled there (as a person's cancel lands between two steps).
 */
function fakeLoop(cancelAfter = Number.POSITIVE_INFINITY, abort?: AbortController) {
  const messages: LoopStepFeeds[][] = [];
  const asked: string[][] = [];
  let ran = 0;
  let closed = false;
  const loop: StepLoop = {
    run(steps) {
      messages.push([...steps]);
      const values = new Float32Array(steps.length).fill(Number.NaN);
      let through = 0;
      for (const own of steps) {
        if (ran >= cancelAfter) {
          abort?.abort();
          break;
        }
        if (own !== null) values[through] = own[step.inputs.x]!.data[0]!;
        through++;
        ran++;
      }
      const result: StepLoopResult = {
        ran: through,
        values: { [step.outputs.loss]: values },
        ms: 2 * through,
      };
      return Promise.resolve(result);
    },
    carried(inputs) {
      asked.push([...inputs]);
      const seven = (): Tensor => ({ type: 'float32', data: Float32Array.of(7), dims: [1] });
      return Promise.resolve(Object.fromEntries(inputs.map((i) => [i, seven()])));
    },
    close() {
      closed = true;
      return Promise.resolve();
    },
  };
  return { loop, messages, asked, closed: () => closed };
}

function context(signal = new AbortController().signal) {
  const emitted: number[] = [];
  const outputs: Record<string, unknown> = {};
  const ctx: StepContext = {
    request: requestId('r'),
    step: 'train',
    signal,
    session: () => {
      throw new Error('no session here');
    },
    read: () => {
      throw new Error('nothing to read');
    },
    output: (name, value) => void (outputs[name] = value),
    emit: (_metric, value) => void emitted.push(value),
  };
  return { ctx, emitted, outputs };
}

function parts(units: number, batch: AheadLoopParts['batch']): AheadLoopParts {
  return {
    name: 'train',
    step,
    units,
    batchSize: 1,
    batch,
    constants: {},
    initial: {},
    lossMetric: 'train.loss',
    weightsOutput: 'train.weights',
    fedOutputs: { device: 'train.deviceFed', gpu: 'train.gpuFed' },
  };
}

/** Runs the body's units as the runner does: in order, until done or `units`. */
async function drive(body: ReturnType<typeof aheadLoopBody>, units: number): Promise<number> {
  let done = 0;
  while (done < units) {
    await body.unit(done);
    done++;
    if (body.done?.() === true) break;
  }
  return done;
}

describe('a train loop many steps per call', () => {
  it('hands a source that writes where it is told the buffers of a message back: no batch is copied', async () => {
    const own = { x: new Float32Array(2), y: new Float32Array(2) };
    let written = 0;
    // As `classifierBatches`: into the buffers offered where they fit, else into its own.
    const batch = (i: number, into?: BatchBuffers): MlpBatch => {
      const { x, y } = into ?? own;
      if (into !== undefined) written++;
      x.fill(i);
      y.fill(-i);
      return {
        x: { type: 'float32', data: x, dims: [1, 2] },
        y: { type: 'float32', data: y, dims: [1, 2] },
      };
    };
    const fake = fakeLoop();
    // Each step's targets as its message arrives (later messages write into the same buffers).
    const targets: number[] = [];
    const run = fake.loop.run.bind(fake.loop);
    fake.loop.run = (steps, signal) => {
      for (const s of steps) targets.push(s![step.inputs.y]!.data[0]!);
      return run(steps, signal);
    };
    const { ctx, emitted } = context();
    const body = aheadLoopBody(parts(20, batch), ctx, fake.loop, new LoopPace({ targetMs: 10 }));
    expect(await drive(body, 20)).toBe(20);
    await body.dispose?.();
    expect(emitted).toEqual(Array.from({ length: 20 }, (_, i) => i));
    // Messages of 1, 5, 5, 5, 4 steps, each sent once the one before came back. Only the batches
    // no message had given buffers for yet were copied: the first, and four of the second.
    expect(fake.messages.map((m) => m.length)).toEqual([1, 5, 5, 5, 4]);
    expect(written).toBe(20 - 5);
    expect(targets).toEqual(Array.from({ length: 20 }, (_, i) => -i));
    const sent = fake.messages.flat();
    expect(sent.some((s) => s![step.inputs.x]!.data === own.x)).toBe(false);
    const buffers = new Set(
      sent.flatMap((s) => [s![step.inputs.x]!.data, s![step.inputs.y]!.data]),
    );
    expect(buffers.size).toBe(10);
  });

  it('sends one step first, then as many as the pace says, each unit emitting its own loss', async () => {
    const fake = fakeLoop();
    const { ctx, emitted, outputs } = context();
    const body = aheadLoopBody(parts(20, source()), ctx, fake.loop, new LoopPace({ targetMs: 10 }));
    expect(await drive(body, 20)).toBe(20);
    await body.end?.();
    await body.dispose?.();
    expect(emitted).toEqual(Array.from({ length: 20 }, (_, i) => i));
    // 2 ms a step, 10 ms a message: one step, then five at a time.
    expect(fake.messages.map((m) => m.length)).toEqual([1, 5, 5, 5, 4]);
    // Every step of a message has its batch's own copies, though the source rewrote one pair of
    // buffers; a message back gives its copies' buffers to the next: 10 in all (x and y of the
    // largest message), not 40.
    const buffers = (steps: LoopStepFeeds[]) =>
      steps.flatMap((s) => [s![step.inputs.x]!.data.buffer, s![step.inputs.y]!.data.buffer]);
    for (const m of fake.messages) expect(new Set(buffers(m)).size).toBe(2 * m.length);
    expect(new Set(buffers(fake.messages.flat())).size).toBe(10);
    // Adam counts the steps that trained, 1 first.
    expect(fake.messages.flat().map((s) => s![adamStep]!.data[0])).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    expect(outputs['train.weights.W0']).toMatchObject({ data: Float32Array.of(7) });
    expect(outputs['train.deviceFed']).toBe(19);
    // Without `stateOutput`, only the weights come back.
    expect(fake.asked).toEqual([
      step.carried.filter((c) => c.role === 'weight').map((c) => c.input),
    ]);
    expect(Object.keys(outputs).filter((name) => name.startsWith('train.state'))).toEqual([]);
    expect(fake.closed()).toBe(true);
  });

  it('keeps two messages on their way to a loop on another thread, and trains the same', async () => {
    const fake = fakeLoop();
    // A loop in a model worker: a call is answered once the worker has gone through it.
    const answers: (() => void)[] = [];
    const run = fake.loop.run.bind(fake.loop);
    let outstanding = 0;
    let most = 0;
    const remote: StepLoop = {
      ...fake.loop,
      ahead: 2,
      run(steps, signal) {
        most = Math.max(most, ++outstanding);
        const result = run(steps, signal);
        return new Promise((resolve) =>
          answers.push(() => {
            outstanding--;
            resolve(result);
          }),
        );
      },
    };
    const answer = setInterval(() => answers.shift()?.(), 1);
    try {
      const { ctx, emitted } = context();
      const body = aheadLoopBody(parts(20, source()), ctx, remote, new LoopPace({ targetMs: 10 }));
      expect(await drive(body, 20)).toBe(20);
      await body.end?.();
      await body.dispose?.();
      expect(emitted).toEqual(Array.from({ length: 20 }, (_, i) => i));
    } finally {
      clearInterval(answer);
    }
    // The next message's batches went while the worker had one to go through.
    expect(most).toBe(2);
    // Two single steps first (the pace had measured none yet), then as the pace says.
    expect(fake.messages.map((m) => m.length)).toEqual([1, 1, 5, 5, 5, 3]);
    expect(fake.messages.flat().map((s) => s![adamStep]!.data[0])).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
  });

  it("goes on from a trained model's optimizer state: Adam's count, and the state read back with the weights", async () => {
    const fake = fakeLoop();
    const { ctx, outputs } = context();
    const body = aheadLoopBody(
      { ...parts(6, source({ 2: 'skip' })), stepsBefore: 40, stateOutput: 'train.state' },
      ctx,
      fake.loop,
      new LoopPace({ targetMs: 10 }),
    );
    expect(await drive(body, 6)).toBe(6);
    await body.end?.();
    await body.dispose?.();
    // The count goes on from the 40 steps before; the skipped unit is no step.
    expect(
      fake.messages
        .flat()
        .filter((s) => s !== null)
        .map((s) => s[adamStep]!.data[0]),
    ).toEqual([41, 42, 43, 44, 45]);
    // One read at the end: every carried tensor, weights and both moments.
    expect(fake.asked).toEqual([step.carried.map((c) => c.input)]);
    expect(outputs['train.weights.W0']).toMatchObject({ data: Float32Array.of(7) });
    for (const c of step.carried.filter((c) => c.role !== 'weight'))
      expect(outputs[`train.state.${c.input}`]).toMatchObject({ data: Float32Array.of(7) });
    expect(outputs['train.state.steps']).toBe(45);
  });

  it("tells the node how its loop's graph capture went, once, at the end", async () => {
    const fake = fakeLoop();
    const reports: unknown[] = [];
    const captured = { ...fake.loop, graphCapture: () => ({ captured: 5, uncaptured: 1 }) };
    const { ctx } = context();
    const body = aheadLoopBody(
      { ...parts(6, source()), onGraphCapture: (report) => reports.push(report) },
      ctx,
      captured,
      new LoopPace({ targetMs: 10 }),
    );
    expect(await drive(body, 6)).toBe(6);
    expect(reports).toEqual([]);
    await body.end?.();
    await body.dispose?.();
    expect(reports).toEqual([{ captured: 5, uncaptured: 1 }]);
    // A loop that was never offered capture (the model worker's) says nothing.
    const silent: unknown[] = [];
    const other = aheadLoopBody(
      { ...parts(2, source()), onGraphCapture: (report) => silent.push(report) },
      context().ctx,
      fakeLoop().loop,
    );
    await drive(other, 2);
    await other.end?.();
    await other.dispose?.();
    expect(silent).toEqual([]);
  });

  it('a skipped unit trains nothing and emits nothing; an end stops the loop there', async () => {
    const fake = fakeLoop();
    const { ctx, emitted } = context();
    const body = aheadLoopBody(
      parts(50, source({ 2: 'skip', 6: 'end' })),
      ctx,
      fake.loop,
      new LoopPace({ targetMs: 10 }),
    );
    // The unit that found the end is the last one the runner runs.
    expect(await drive(body, 50)).toBe(7);
    expect(emitted).toEqual([0, 1, 3, 4, 5]);
    const sent = fake.messages.flat();
    expect(sent).toHaveLength(6);
    expect(sent[2]).toBeNull();
    // The skipped unit is no Adam step.
    expect(sent.filter((s) => s !== null).map((s) => s[adamStep]!.data[0])).toEqual([
      1, 2, 3, 4, 5,
    ]);
    await body.dispose?.();
  });

  it('a cancel mid-message: the units the model did not run emit nothing', async () => {
    const abort = new AbortController();
    const fake = fakeLoop(8, abort);
    const { ctx, emitted } = context(abort.signal);
    const body = aheadLoopBody(
      parts(100, source()),
      ctx,
      fake.loop,
      new LoopPace({ targetMs: 10 }),
    );
    // The runner runs units until it sees the cancel, then lets the loop go.
    let units = 0;
    while (!abort.signal.aborted) await body.unit(units++);
    // The model went through 8 steps: only those emit, however many more units are asked for.
    while (emitted.length < 8 && units < 100) await body.unit(units++);
    await body.unit(units);
    await body.dispose?.();
    expect(emitted).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(fake.closed()).toBe(true);
  });
});
