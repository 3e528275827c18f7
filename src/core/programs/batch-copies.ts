/**
 * Copies of the batches a loop sends ahead (mlp-loop-ahead.ts), their
 * buffers used again once the message that took them is back.
 *
 * Idea: a loop whose steps run beside the engine (session-loop.ts, the
 * command line's) hands a message's feeds back intact when its call
 * resolves, so the next message copies its batches into the same buffers:
 * a train step's batch (some 800 KB) is then neither allocated, zeroed nor
 * collected every step. A model worker's loop takes the buffers instead
 * (they are transferred, and left detached here): those are never kept.
 */
import type { LoopStepFeeds, Tensor } from '../runtime/tensor-runtime.ts';

type Data = Tensor['data'];

export class BatchCopies {
  /** Buffers free to copy into, by element type and length. */
  private readonly free = new Map<string, Data[]>();
  /** The buffers these copies made: only they are taken back. */
  private readonly made = new WeakSet<Data>();

  /** A copy of `t`, in a buffer given back earlier where one of its type and length is free. */
  copy(t: Tensor): Tensor {
    const reused = this.free.get(keyOf(t.data))?.pop();
    let data: Data;
    if (reused === undefined) {
      data = t.data.slice();
      this.made.add(data);
    } else {
      data = reused;
      (data as Float32Array).set(t.data);
    }
    return { type: t.type, data, dims: [...t.dims] };
  }

  /** Takes back the buffers of `steps` once their call has resolved; a transferred one is left. */
  giveBack(steps: readonly LoopStepFeeds[]): void {
    for (const step of steps) {
      if (step === null) continue;
      for (const name in step) {
        const { data } = step[name]!;
        if (!this.made.has(data) || data.byteLength === 0) continue;
        const key = keyOf(data);
        const list = this.free.get(key);
        if (list === undefined) this.free.set(key, [data]);
        else list.push(data);
      }
    }
  }
}

const keyOf = (data: Data): string => `${data instanceof Int32Array ? 'i' : 'f'}${data.length}`;
