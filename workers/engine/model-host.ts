/**
 * The model worker's side of the model protocol: it holds each run's tensor
 * runtime (onnxruntime, in the browser), its sessions and the device tensors
 * they return, and answers the engine's calls. It takes a port, not a worker
 * scope, so unit tests under Node join it to `RemoteRuntime` with a
 * `MessageChannel` and exercise the real protocol.
 *
 * Outputs on the CPU go back with their buffers transferred (each is a fresh
 * array onnxruntime copied out of its heap); device tensors stay here, named
 * by number, until the engine disposes them or their runtime is released.
 */
import type {
  Backend,
  DeviceTensor,
  EngineInfo,
  Feed,
  ModelSession,
  Tensor,
  TensorRuntime,
} from '../../src/core/engine/runtime';
import { isDeviceTensor } from '../../src/core/engine/runtime';
import type {
  ModelCall,
  ModelCalls,
  ModelReply,
  ModelRequest,
  WireFeed,
  WireFetched,
} from '../model-protocol';
import { serializeError } from '../protocol';

/** The Web Locks a worker can take (`navigator.locks`; a stand-in in tests). */
export interface Locks {
  request(name: string, callback: () => Promise<unknown>): Promise<unknown>;
}

/** What the model worker runs sessions on: onnxruntime in the browser, anything alike in tests. */
export type HostedRuntime = TensorRuntime & { releaseAll(): Promise<void> };

/** The model worker's end: its global scope, or a `MessagePort` in tests. */
export interface ModelScope {
  postMessage(message: ModelReply, options: { transfer: Transferable[] }): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<ModelRequest>) => void): void;
}

/** A call's result, and the buffers to transfer with it rather than copy. */
interface Answer<C extends ModelCall> {
  result: ModelCalls[C]['result'];
  transfer?: ArrayBuffer[];
}

/** The buffer of a CPU tensor, when it can be transferred whole (the array is all of it). */
function ownBuffer(tensor: Tensor): ArrayBuffer | null {
  const { data } = tensor;
  const buffer = data.buffer;
  return buffer instanceof ArrayBuffer &&
    data.byteOffset === 0 &&
    data.byteLength === buffer.byteLength
    ? buffer
    : null;
}

/** The buffers of a run's CPU feeds. */
function feedBuffers(feeds: Record<string, WireFeed>): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  for (const feed of Object.values(feeds))
    if ('tensor' in feed && feed.tensor.data.buffer instanceof ArrayBuffer)
      buffers.add(feed.tensor.data.buffer);
  return [...buffers];
}

/** Serve model calls on `scope`, making each run's runtime with `makeRuntime`. */
export function serveModels(
  scope: ModelScope,
  makeRuntime: (info: EngineInfo, runBackend: Backend) => HostedRuntime,
  locks: Locks,
): void {
  const runtimes = new Map<number, HostedRuntime>();
  const sessions = new Map<number, { runtime: number; session: ModelSession }>();
  const tensors = new Map<number, { runtime: number; tensor: DeviceTensor }>();
  let nextSession = 0;
  let nextTensor = 0;

  const session = (id: number) => {
    const found = sessions.get(id);
    if (!found) throw new Error(`session ${id} was released`);
    return found;
  };
  const deviceTensor = (id: number) => {
    const found = tensors.get(id);
    if (!found) throw new Error(`a device tensor was fed after dispose()`);
    return found.tensor;
  };
  const feed = (wire: WireFeed): Feed =>
    'device' in wire ? deviceTensor(wire.device) : wire.tensor;

  const calls: {
    [C in ModelCall]: (params: ModelCalls[C]['params']) => Promise<Answer<C>>;
  } = {
    async hold({ lock }) {
      await new Promise<void>((held) => {
        void locks.request(lock, () => {
          held();
          return new Promise(() => undefined); // kept until this worker is gone
        });
      });
      return { result: null };
    },
    async create({ runtime, info, runBackend, model, choice, deviceOutputs }) {
      let hosted = runtimes.get(runtime);
      if (!hosted) {
        hosted = makeRuntime(info, runBackend);
        runtimes.set(runtime, hosted);
      }
      const made = await hosted.createSession(model, choice, { deviceOutputs });
      const id = ++nextSession;
      sessions.set(id, { runtime, session: made });
      const { backend, inputNames, outputNames } = made;
      return {
        result: {
          session: id,
          backend,
          inputNames: [...inputNames],
          outputNames: [...outputNames],
        },
      };
    },
    async run({ session: id, feeds }) {
      const { runtime, session: running } = session(id);
      const fed: Record<string, Feed> = {};
      for (const name in feeds) fed[name] = feed(feeds[name]!);
      const outputs = await running.run(fed);
      const wired: Record<string, WireFetched> = {};
      const transfer: ArrayBuffer[] = [];
      for (const [name, value] of Object.entries(outputs)) {
        if (!isDeviceTensor(value)) {
          wired[name] = { tensor: value };
          const buffer = ownBuffer(value);
          if (buffer && !transfer.includes(buffer)) transfer.push(buffer);
          continue;
        }
        const tensor = ++nextTensor;
        tensors.set(tensor, { runtime, tensor: value });
        const { storage, type, dims } = value;
        wired[name] = { device: tensor, storage, type, dims: [...dims] };
      }
      return { result: wired, transfer };
    },
    async read({ tensor }) {
      const held = deviceTensor(tensor);
      const data = await held.read();
      // A download is a fresh array; a CPU device tensor reads as the array it keeps, so that is copied.
      const buffer = held.storage === 'gpu-buffer' ? ownBuffer(data) : null;
      return { result: data, transfer: buffer ? [buffer] : [] };
    },
    async release({ session: id }) {
      const found = sessions.get(id);
      sessions.delete(id);
      await found?.session.release();
      return { result: null };
    },
    async releaseAll({ runtime }) {
      const hosted = runtimes.get(runtime);
      runtimes.delete(runtime);
      for (const [id, held] of sessions) if (held.runtime === runtime) sessions.delete(id);
      for (const [id, held] of tensors) if (held.runtime === runtime) tensors.delete(id);
      await hosted?.releaseAll();
      return { result: null };
    },
  };

  scope.addEventListener('message', (event) => {
    const request = event.data;
    for (const tensor of request.dispose ?? []) {
      tensors.get(tensor)?.tensor.dispose();
      tensors.delete(tensor);
    }
    if (request.call === 'dispose') return;
    const { id } = request;
    // The buffers the feeds came in go back once the run has settled: onnxruntime copied them in.
    const buffers = request.call === 'run' ? feedBuffers(request.params.feeds) : [];
    const call = calls[request.call] as (params: unknown) => Promise<Answer<ModelCall>>;
    call(request.params).then(
      ({ result, transfer = [] }) =>
        scope.postMessage(
          { id, ok: true, result, buffers },
          { transfer: [...new Set([...transfer, ...buffers])] },
        ),
      (error: unknown) =>
        scope.postMessage(
          { id, ok: false, error: serializeError(error), buffers },
          { transfer: buffers },
        ),
    );
  });
}
