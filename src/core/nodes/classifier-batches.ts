/**
 * The mini-batches of a classifier's training, as a pure function of the
 * step index.
 *
 * Idea: the batch order is the same seeded stream as always — shuffle, walk
 * the permutation a batch at a time, reshuffle when the next batch would run
 * past the end — but a program loop may ask for its batches more than once
 * (a parity check runs the request serially, then interleaved), so `batch(i)`
 * must not depend on who asked before. When asked for an earlier epoch than
 * the current one, the order stream is replayed from its seed. Trade-off: a
 * replay costs one permutation per epoch, once per pass.
 *
 * Every batch is written into the same two buffers, made once: a training
 * loop asks for a batch per step, and a fresh 200k-float batch per step was
 * most of the runner's overhead over a bare session loop (the copy and the
 * garbage it leaves). So a batch is valid until the next `batch()` call —
 * which suits a loop that hands it to a session run and awaits the run
 * before asking for the next (the runner runs one unit at a time). A loop
 * that keeps several batches at once (one sending steps ahead) passes the
 * buffers to write each into (`into`), rather than copying it out.
 */
import type { Dataset } from '../catalog/values';
import type { Tensor } from '../runtime/tensor-runtime';
import type { BatchBuffers } from '../programs/batch-copies';
import { permutation, type Random } from '../random';

/**
 * Batches of `size` rows: features `[size, featureSize]` and targets
 * `[size, classes]` (one-hot classes, or a regression dataset's targets with `classes` 1).
 */
export interface ClassifierBatches {
  readonly size: number;
  /**
   * Batch `index`, in buffers the next call overwrites (copy what you keep);
   * written into `into` instead where its buffers are the batch's lengths.
   */
  batch(index: number, into?: BatchBuffers): { readonly x: Tensor; readonly y: Tensor };
  /** The dataset rows batch `index` holds, in order, in a buffer the next call overwrites. */
  rows(index: number): Int32Array;
}

/**
 * @param freshRandom the order stream from its start (the same stream each call).
 * @param batchSize rows per batch; capped at the dataset's rows.
 * @param rowShape the shape the model takes a row in (a CNN: `[channels, height, width]`); default `[featureSize]`.
 */
export function classifierBatches(
  data: Dataset,
  batchSize: number,
  freshRandom: () => Random,
  rowShape: readonly number[] = [data.featureSize],
): ClassifierBatches {
  const size = Math.min(batchSize, data.count);
  const perEpoch = Math.floor(data.count / size);
  let random = freshRandom();
  let epoch = 0;
  let order = permutation(data.count, random);
  const orderOf = (wanted: number): Uint32Array => {
    if (wanted < epoch) {
      random = freshRandom();
      epoch = 0;
      order = permutation(data.count, random);
    }
    while (epoch < wanted) {
      order = permutation(data.count, random);
      epoch++;
    }
    return order;
  };
  const { featureSize, classes, features, labels, targets } = data;
  const x = new Float32Array(size * featureSize);
  const y = new Float32Array(size * classes);
  const batch = {
    x: { type: 'float32', data: x, dims: [size, ...rowShape] },
    y: { type: 'float32', data: y, dims: [size, classes] },
  } as const satisfies { x: Tensor; y: Tensor };
  const picked = new Int32Array(size);
  const rowsOf = (index: number): Int32Array => {
    const rows = orderOf(Math.floor(index / perEpoch));
    const from = (index % perEpoch) * size;
    for (let i = 0; i < size; i++) picked[i] = rows[from + i]!;
    return picked;
  };
  return {
    size,
    rows: rowsOf,
    batch(index, into) {
      const rows = rowsOf(index);
      const fits = into !== undefined && into.x.length === x.length && into.y.length === y.length;
      const xs = fits ? into.x : x;
      const ys = fits ? into.y : y;
      ys.fill(0);
      for (let i = 0; i < size; i++) {
        const row = rows[i]!;
        xs.set(features.subarray(row * featureSize, (row + 1) * featureSize), i * featureSize);
        // A regression dataset's one output is its target; a class is one-hot.
        if (targets) ys[i] = targets[row]!;
        else ys[i * classes + labels[row]!] = 1;
      }
      if (!fits) return batch;
      return { x: { ...batch.x, data: xs }, y: { ...batch.y, data: ys } };
    },
  };
}
