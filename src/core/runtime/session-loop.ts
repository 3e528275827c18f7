/**
 * A loop of steps run one after another on a session, where the session
 * runs: the model worker's loops (model-host.ts), and those of a runtime
 * with no worker to host them, such as the command line's, whose sessions
 * run beside the engine (`openSessionLoop`).
 *
 * Idea: the loop feeds one record, updated in place: its constants, the
 * step's own feeds, and the carried tensors, all in the session's own kind
 * of tensor (`StepSession`: onnxruntime's, where the runtime offers it, so
 * nothing is converted between two runs). Each step's carried outputs take
 * the place of the inputs they replace, which are let go (a device tensor
 * is disposed). A call's steps go back to back, with nothing between two
 * runs but moving the carried tensors and reading each `read` output's
 * first value; the caller sees the call's values together. Trade-off: a
 * cancel is seen between two steps, not inside one.
 *
 * Where the session can write an output into a tensor it is given
 * (`StepSession.writesInto`: onnxruntime-node's preallocated outputs), a
 * carried output is written over the tensor the step before read, so a
 * loop runs on two buffers per carried tensor, not a fresh one a step.
 * The bench's MLP run from the command line took 1.041 ms a step so over
 * steps 1,000–2,000 against 1.064 (medians of 8 fresh processes each, the
 * pairs' median ratio 0.976); its first 400 steps, slowed by V8 compiling,
 * did not move. Neither the first values (the caller's) nor a value
 * `carried` handed out (the caller may still read it) is written over.
 *
 * Such a session (onnxruntime-node) also reads a CPU feed where it lies, so
 * a step that gathers its rows (a model's `gatheringModel`) is fed the
 * whole dataset with the constants, as it is, and each step its row
 * indices: the batch is gathered in onnxruntime's native code, where the
 * engine would copy some 800 KB a step into a batch of its own (the MLP
 * bench) that the session then reads from a buffer gone cold. That MLP run
 * from the command line took 1.007 ms a step so over steps 5–405 against
 * 1.174 on the engine's batches, and 0.857 against 0.986 over steps
 * 1,000–2,000 (medians of 6 fresh processes each, alternating).
 */
import type {
  Feed,
  LoopStepFeeds,
  ModelSession,
  StepLoop,
  StepLoopPlan,
  StepLoopResult,
  Tensor,
} from './tensor-runtime.ts';
import { isDeviceTensor, readTensor } from './tensor-runtime.ts';

/**
 * What a session loop needs of its plan. A dataset offered as `resident`
 * (to a step that gathers its rows) is fed with the constants every step:
 * only a session that reads a CPU feed where it lies is given one
 * (`TensorRuntime.hostLoopsGather`).
 */
export type SessionLoopPlan = Pick<
  StepLoopPlan,
  'carried' | 'initial' | 'constants' | 'read' | 'resident'
>;

/**
 * A session as a loop drives it, in tensors of its own kind `T`: the
 * engine's feeds (`modelSteps`), or onnxruntime's (the runtime's, so a
 * step's outputs are fed to the next as they came).
 */
export interface StepSession<T> {
  /** A CPU tensor as the session takes it. */
  feed(tensor: Tensor): T;
  /**
   * Runs a step. With `writesInto`, `into` may name outputs to be written
   * into the tensors it gives, tensors of this session's nobody reads any
   * more, in place of new ones.
   */
  run(
    feeds: Readonly<Record<string, T>>,
    into?: Readonly<Record<string, T | undefined>>,
  ): Promise<Record<string, T>>;
  /** Whether `run` writes the outputs `into` names into the tensors given there. */
  readonly writesInto?: boolean;
  /** An output's first value. */
  first(value: T): number | Promise<number>;
  /** A carried value as a CPU tensor (the trained weights at the end). */
  tensor(value: T): Promise<Tensor>;
  /** Lets go of a carried value the next step replaced, or the loop's last at close. */
  release(value: T): void;
}

/** The first value of a fetched output, as a number. */
async function firstValue(value: Feed): Promise<number> {
  const tensor = await readTensor(value);
  return tensor.data[0] ?? Number.NaN;
}

/** Any model session as a loop drives it: its feeds and fetches as the engine's. */
export function modelSteps(model: Pick<ModelSession, 'run'>): StepSession<Feed> {
  return {
    feed: (tensor) => tensor,
    run: (feeds) => model.run(feeds),
    first: firstValue,
    tensor: readTensor,
    release: (value) => {
      if (isDeviceTensor(value)) value.dispose();
    },
  };
}

/** A loop's feeds and steps over one session; see the module comment. */
export class SessionSteps<T> {
  private readonly feeds: Record<string, T> = {};
  /** Carried output → a tensor of the session's for the next step to write it into (`writesInto`). */
  private readonly into: Record<string, T | undefined> = {};
  /** Tensors never to be written over: the first values, and those `carried` handed out. */
  private readonly kept = new Set<T>();
  /** The call running now, if any; the next waits for it. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly session: StepSession<T>,
    private readonly plan: SessionLoopPlan,
  ) {
    for (const name in plan.constants) this.feeds[name] = session.feed(plan.constants[name]!);
    for (const name in plan.resident) this.feeds[name] = session.feed(plan.resident[name]!);
    for (const c of plan.carried) {
      const first = plan.initial[c.input];
      if (first === undefined) throw new Error(`a loop needs a first value of ${c.input}`);
      const fed = session.feed(first);
      this.feeds[c.input] = fed;
      if (session.writesInto === true) this.kept.add(fed);
    }
  }

  /**
   * Runs `steps` in order until `stopped()` says so before one; the read
   * outputs' values per step. A call made while another runs waits for it:
   * calls run in the order they were made, each on the one before's carried
   * tensors.
   */
  run(steps: readonly LoopStepFeeds[], stopped: () => boolean): Promise<StepLoopResult> {
    const ran = this.queue.then(() => this.runNow(steps, stopped));
    this.queue = ran.catch(() => undefined);
    return ran;
  }

  private async runNow(
    steps: readonly LoopStepFeeds[],
    stopped: () => boolean,
  ): Promise<StepLoopResult> {
    const { feeds, into, plan, session } = this;
    const reuse = session.writesInto === true;
    const values: Record<string, Float32Array> = {};
    for (const name of plan.read) values[name] = new Float32Array(steps.length).fill(Number.NaN);
    const start = performance.now();
    let ran = 0;
    for (const own of steps) {
      if (stopped()) break;
      if (own !== null) {
        for (const name in own) feeds[name] = session.feed(own[name]!);
        const out = await (reuse ? session.run(feeds, into) : session.run(feeds));
        for (const c of plan.carried) {
          const consumed = feeds[c.input];
          // A written output is the tensor given for it (what onnxruntime hands back is a view of it).
          const fresh = into[c.output] ?? out[c.output];
          if (fresh === undefined) throw new Error(`the step returned no ${c.output}`);
          feeds[c.input] = fresh;
          into[c.output] = undefined;
          if (consumed === fresh || consumed === undefined) continue;
          if (!reuse || this.kept.delete(consumed)) session.release(consumed);
          else into[c.output] = consumed;
        }
        for (const name of plan.read) {
          const value = out[name];
          const first = value === undefined ? Number.NaN : session.first(value);
          // A CPU tensor's value is there already: no await (a microtask) for it.
          values[name]![ran] = typeof first === 'number' ? first : await first;
        }
      }
      ran++;
    }
    return { ran, values, ms: performance.now() - start };
  }

  /** The carried inputs' current values, by input name. */
  async carried(inputs: readonly string[]): Promise<Record<string, Tensor>> {
    const back: Record<string, Tensor> = {};
    for (const input of inputs) {
      const value = this.feeds[input];
      if (value === undefined) throw new Error(`the loop carries no ${input}`);
      // The caller may hold on to what it gets back: no step writes over it.
      if (this.session.writesInto === true) this.kept.add(value);
      back[input] = await this.session.tensor(value);
    }
    return back;
  }

  /** Lets go of the carried values. */
  close(): void {
    for (const c of this.plan.carried) {
      const t = this.feeds[c.input];
      if (t !== undefined) this.session.release(t);
      const spare = this.into[c.output];
      if (spare !== undefined) this.session.release(spare);
    }
  }
}

/**
 * The work a call of a loop beside the engine carries, ms. There is no hop
 * to a worker to pay for here, and a call's batches (800 KB a train step of
 * the MLP bench) are held until it comes back: at the pace's default of
 * 75 ms, a 3,000-step command-line run of that step paid 54 full garbage
 * collections (3 at 10 ms) and its steps 1,000–3,000 took 1.11–1.18 ms
 * each against 0.97–1.06 at 10 ms (four runs each, alternating).
 */
export const SESSION_LOOP_MESSAGE_MS = 10;

/** A loop over `session` run where it is, stopped between two steps by the call's signal. */
export function openSessionLoop<T>(session: StepSession<T>, plan: SessionLoopPlan): StepLoop {
  const steps = new SessionSteps(session, plan);
  let closed = false;
  return {
    messageMs: SESSION_LOOP_MESSAGE_MS,
    // Fed every step, its steps need only their rows.
    resident: plan.resident !== undefined,
    run(feeds, signal) {
      if (closed) return Promise.reject(new Error('a session loop ran after close()'));
      return steps.run(feeds, () => signal.aborted);
    },
    carried: (inputs) => steps.carried(inputs),
    close() {
      if (!closed) steps.close();
      closed = true;
      return Promise.resolve();
    },
  };
}
