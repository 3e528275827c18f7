/**
 * The model worker's side of the model protocol (workers/model-protocol.ts):
 * it holds sessions on a tensor runtime of its own (onnxruntime-web WASM
 * with threads, in the browser) and the loops opened on them, and runs a
 * loop's steps one after another for each `steps` call. It takes a port,
 * not a worker scope, so unit tests under Node join it to the engine's side
 * with a `MessageChannel` and exercise the real protocol.
 *
 * A loop's steps run as session-loop.ts says. Nothing of a loop crosses back
 * but what it reads every step (the loss) and, when asked, its carried
 * tensors.
 */
import type {
  Feed,
  ModelSession,
  Tensor,
  TensorRuntime,
} from '../../src/core/runtime/tensor-runtime';
import { isDeviceTensor, readTensor } from '../../src/core/runtime/tensor-runtime';
import { modelSteps, SessionSteps } from '../../src/core/runtime/session-loop';
import { serializeError } from '../../src/core/errors';
import {
  tensorBuffers,
  type ModelCall,
  type ModelCalls,
  type ModelReply,
  type ModelRequest,
} from '../model-protocol';

/** The model worker's end: its global scope, or a `MessagePort` in tests. */
export interface ModelScope {
  postMessage(message: ModelReply, options: { transfer: Transferable[] }): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<ModelRequest>) => void): void;
}

/** What the worker runs sessions on, and with how many threads. */
export interface ModelHostRuntime {
  readonly runtime: TensorRuntime;
  readonly threads: number;
  /** The Web Locks it can hold for its life (`navigator.locks`); none: `hold` is refused. */
  readonly locks?: Locks;
}

/** The Web Locks a worker can take (`navigator.locks`; a stand-in in tests). */
export interface Locks {
  request(name: string, callback: () => Promise<unknown>): Promise<unknown>;
}

interface OpenLoop {
  readonly session: number;
  readonly steps: SessionSteps<Feed>;
  readonly cancel: Int32Array | null;
}

/** Serve model calls on `scope`, with sessions on `host`'s runtime. */
export function serveModels(scope: ModelScope, host: ModelHostRuntime): void {
  const sessions = new Map<number, ModelSession>();
  const loops = new Map<number, OpenLoop>();
  let next = 0;

  const sessionOf = (id: number): ModelSession => {
    const found = sessions.get(id);
    if (found === undefined) throw new Error(`model session ${id} was released`);
    return found;
  };
  const loopOf = (id: number): OpenLoop => {
    const found = loops.get(id);
    if (found === undefined) throw new Error(`loop ${id} was closed`);
    return found;
  };
  const closeLoop = (id: number) => {
    loops.get(id)?.steps.close();
    loops.delete(id);
  };

  const calls: {
    [C in ModelCall]: (params: ModelCalls[C]['params']) => Promise<ModelCalls[C]['result']>;
  } = {
    async hold({ lock }) {
      const locks = host.locks;
      if (locks === undefined) throw new Error('this model worker has no Web Locks to hold');
      await new Promise<void>((held) => {
        void locks.request(lock, () => {
          held();
          return new Promise(() => undefined); // kept until this worker is gone
        });
      });
      return null;
    },
    async create({ model, deviceOutputs }) {
      const made = await host.runtime.createSession(model, 'wasm', { deviceOutputs });
      const id = ++next;
      sessions.set(id, made);
      return {
        session: id,
        backend: made.backend,
        inputNames: [...made.inputNames],
        outputNames: [...made.outputNames],
        threads: host.threads,
      };
    },
    async run({ session, feeds }) {
      const outputs = await sessionOf(session).run(feeds);
      const back: Record<string, Tensor> = {};
      for (const [name, value] of Object.entries(outputs)) {
        back[name] = await readTensor(value);
        if (isDeviceTensor(value)) value.dispose();
      }
      return back;
    },
    open({ session, carried, initial, constants, read, cancel }) {
      const steps = new SessionSteps(modelSteps(sessionOf(session)), {
        carried,
        initial,
        constants,
        read,
      });
      const id = ++next;
      loops.set(id, { session, steps, cancel: cancel === null ? null : new Int32Array(cancel) });
      return Promise.resolve({ loop: id });
    },
    async steps({ loop: id, steps }) {
      const { cancel, steps: loop } = loopOf(id);
      const done = await loop.run(steps, () => cancel !== null && Atomics.load(cancel, 0) !== 0);
      // onnxruntime has copied the batches in: they go back, for the engine's next ones.
      return { ...done, steps };
    },
    carried({ loop: id, inputs }) {
      return loopOf(id).steps.carried(inputs);
    },
    close({ loop }) {
      closeLoop(loop);
      return Promise.resolve(null);
    },
    async release({ session }) {
      for (const [id, loop] of loops) if (loop.session === session) closeLoop(id);
      const model = sessions.get(session);
      sessions.delete(session);
      await model?.release();
      return null;
    },
  };

  scope.addEventListener('message', (event) => {
    const request = event.data;
    const call = calls[request.call] as (params: unknown) => Promise<unknown>;
    // Calls on one port are answered in the order they settle; each names its id.
    void (async () => {
      try {
        const result = (await call(request.params)) as ModelCalls[ModelCall]['result'];
        const transfer = request.call === 'steps' ? stepsBuffers(result as StepsResult) : [];
        scope.postMessage({ id: request.id, ok: true, result }, { transfer });
      } catch (error) {
        scope.postMessage(
          { id: request.id, ok: false, error: serializeError(error) },
          { transfer: [] },
        );
      }
    })();
  });
}

type StepsResult = ModelCalls['steps']['result'];

/** What a `steps` answer moves rather than copies: the values read, and the steps' batches. */
function stepsBuffers(result: StepsResult): ArrayBuffer[] {
  const fed = tensorBuffers(
    result.steps.flatMap((step) => (step === null ? [] : Object.values(step))),
  );
  return [...Object.values(result.values).map((v) => v.buffer as ArrayBuffer), ...fed];
}
