import { describe, expect, it } from 'vitest';
import { BatchCopies } from './batch-copies';
import type { Tensor } from '../runtime/tensor-runtime';

const batch = (...values: number[]): Tensor => ({
  type: 'float32',
  data: Float32Array.from(values),
  dims: [values.length],
});

describe('batch copies', () => {
  it('copies into a buffer given back once its call resolved, and never one still out', () => {
    const copies = new BatchCopies();
    const source = batch(1, 2, 3);
    const first = copies.copy(source);
    const second = copies.copy(source);
    expect(second.data).not.toBe(first.data);
    copies.giveBack([{ x: first }, null]);
    source.data.set([4, 5, 6]);
    const third = copies.copy(source);
    expect(third.data).toBe(first.data);
    expect([...third.data]).toEqual([4, 5, 6]);
    // Given back once, taken once: the next copy needs a buffer of its own.
    expect(copies.copy(source).data).not.toBe(first.data);
  });

  it('keeps neither a buffer a worker took (transferred) nor one it did not make', () => {
    const copies = new BatchCopies();
    const moved = copies.copy(batch(1, 2));
    structuredClone(moved.data.buffer, { transfer: [moved.data.buffer as ArrayBuffer] });
    const foreign = batch(7, 8);
    copies.giveBack([{ x: moved, y: foreign }]);
    const next = copies.copy(batch(3, 4));
    expect(next.data === moved.data).toBe(false);
    expect(next.data).not.toBe(foreign.data);
    expect([...next.data]).toEqual([3, 4]);
  });

  it('keeps the buffers a worker handed back in place of those it took, and only those of its own copies', () => {
    const copies = new BatchCopies();
    const moved = copies.copy(batch(1, 2));
    const foreign = batch(7, 8);
    const sent = [{ x: moved, y: foreign }];
    // As a model worker answers: the step's buffers moved there and back again.
    const back = structuredClone(sent, {
      transfer: [moved.data.buffer as ArrayBuffer, foreign.data.buffer as ArrayBuffer],
    });
    copies.giveBack(sent, back);
    const next = copies.copy(batch(3, 4));
    expect(next.data).toBe(back[0]!.x.data);
    expect([...next.data]).toEqual([3, 4]);
    // The one it did not make (the step's other feed) is not kept: the next copy is fresh.
    expect(copies.copy(batch(5, 6)).data).not.toBe(back[0]!.y.data);
  });

  it('gives each element type and length its own buffers', () => {
    const copies = new BatchCopies();
    const floats = copies.copy(batch(1, 2));
    copies.giveBack([{ x: floats }]);
    const ints = copies.copy({ type: 'int32', data: Int32Array.of(1, 2), dims: [2] });
    const longer = copies.copy(batch(1, 2, 3));
    expect(ints.data).toBeInstanceOf(Int32Array);
    expect(longer.data).not.toBe(floats.data);
    expect(copies.copy(batch(5, 6)).data).toBe(floats.data);
  });

  it("offers a message back's buffers for the next batch, and copies one the source wrote elsewhere", () => {
    const copies = new BatchCopies();
    expect(copies.spare()).toBeUndefined();
    const first = copies.keep({ x: batch(1, 2, 3), y: batch(1) }, undefined);
    // Nothing given back yet: nothing to offer.
    expect(copies.spare()).toBeUndefined();
    copies.giveBack([{ x: first.x, y: first.y }]);
    const into = copies.spare()!;
    expect(into.x).toBe(first.x.data);
    expect(into.y).toBe(first.y.data);
    into.x.set([4, 5, 6]);
    const written = { x: { ...first.x, data: into.x }, y: { ...first.y, data: into.y } };
    expect(copies.keep(written, into)).toBe(written);
    // A source that ignored `into` is copied, into those very buffers, freed again.
    copies.giveBack([{ x: written.x, y: written.y }]);
    const offered = copies.spare()!;
    const elsewhere = { x: batch(7, 8, 9), y: batch(2) };
    const kept = copies.keep(elsewhere, offered);
    expect(kept.x.data).toBe(offered.x);
    expect([...kept.x.data]).toEqual([7, 8, 9]);
    // Buffers offered for a unit that was skipped go back unused.
    copies.giveBack([{ x: kept.x, y: kept.y }]);
    copies.unused(copies.spare());
    expect(copies.spare()?.x).toBe(kept.x.data);
  });
});
