/**
 * Copies of the batches a loop sends ahead (mlp-loop-ahead.ts), their
 * buffers used again once the message that took them is back.
 *
 * Idea: a loop whose steps run beside the engine (session-loop.ts, the
 * command line's) hands a message's feeds back intact when its call
 * resolves, so the next message copies its batches into the same buffers:
 * a train step's batch (some 800 KB) is then neither allocated, zeroed nor
 * collected every step. Better still, a source that can write a batch
 * where it is told (`into`, classifier-batches.ts) is handed two such
 * buffers (`spare`), and the batch is not copied at all. A model worker's
 * loop takes the buffers instead (they are transferred, and left detached
 * here) and hands them back with its answer: those are kept in their place.
 */
import type { LoopStepFeeds, Tensor } from '../runtime/tensor-runtime.ts';

type Data = Tensor['data'];

/** Buffers a batch source may write a batch into, a features and a targets one. */
export interface BatchBuffers {
  readonly x: Float32Array;
  readonly y: Float32Array;
}

/** A batch: features and targets. */
export type Batch = { readonly x: Tensor; readonly y: Tensor };

export class BatchCopies {
  /** Buffers free to copy into, by element type and length. */
  private readonly free = new Map<string, Data[]>();
  /** The buffers these copies made: only they are taken back. */
  private readonly made = new WeakSet<Data>();
  /** The keys of the last batch kept (its features', its targets'): what `spare` offers. */
  private lastX: string | null = null;
  private lastY: string | null = null;

  /**
   * Two free buffers of the last kept batch's lengths, for the source to
   * write the next batch into; undefined when there are none.
   */
  spare(): BatchBuffers | undefined {
    if (this.lastX === null || this.lastY === null) return undefined;
    const x = this.free.get(this.lastX)?.pop();
    const y = this.free.get(this.lastY)?.pop();
    if (x instanceof Float32Array && y instanceof Float32Array) return { x, y };
    // One without the other, or a list run dry: whichever was taken goes back.
    this.putBack(x);
    this.putBack(y);
    return undefined;
  }

  /**
   * `batch` as the loop keeps it until its call resolves: as it is when the
   * source wrote it into `into` (from `spare`), else copied (and `into`,
   * unused, freed again).
   */
  keep(batch: Batch, into: BatchBuffers | undefined): Batch {
    // Every step keeps a batch: its keys, not an object of them.
    this.lastX = keyOf(batch.x.data);
    this.lastY = keyOf(batch.y.data);
    if (into !== undefined && batch.x.data === into.x && batch.y.data === into.y) return batch;
    this.unused(into);
    return { x: this.copy(batch.x), y: this.copy(batch.y) };
  }

  /** Frees `into` (from `spare`) that no batch was written into: the unit was skipped, or the end. */
  unused(into: BatchBuffers | undefined): void {
    this.putBack(into?.x);
    this.putBack(into?.y);
  }

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

  /**
   * Takes back the buffers of `steps` once their call has resolved; where
   * they were transferred, those the call handed `back` in their place (a
   * model worker's loop returns them), else none.
   */
  giveBack(steps: readonly LoopStepFeeds[], back: readonly LoopStepFeeds[] = steps): void {
    steps.forEach((step, i) => {
      if (step === null) return;
      for (const name in step) {
        const sent = step[name]!.data;
        const returned = back[i]?.[name]?.data ?? sent;
        if (!this.made.has(sent)) continue;
        this.made.add(returned);
        this.putBack(returned);
      }
    });
  }

  /** Frees `data` for later copies, if these copies made it and it was not transferred. */
  private putBack(data: Data | undefined): void {
    if (data === undefined || !this.made.has(data) || data.byteLength === 0) return;
    const key = keyOf(data);
    const list = this.free.get(key);
    if (list === undefined) this.free.set(key, [data]);
    else list.push(data);
  }
}

const keyOf = (data: Data): string => `${data instanceof Int32Array ? 'i' : 'f'}${data.length}`;
