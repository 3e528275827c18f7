import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { smoothEma } from './ema';

/**
 * TensorBoard's classic smoothing (`classicSmoothing` in
 * tensorboard/webapp/widgets/line_chart_v2/data_transformer.ts), written out
 * point by point as it is there, to hold our columnar version against.
 */
function tensorBoardSmoothing(ys: readonly number[], weight: number): number[] {
  let w = Number.isFinite(weight) ? weight : 0;
  w = Math.max(0, Math.min(w, 1));
  const first = ys[0];
  if (ys.every((y) => y == first)) return [...ys];
  let last = ys.length > 0 ? 0 : NaN;
  let numAccum = 0;
  return ys.map((nextVal) => {
    if (!Number.isFinite(nextVal)) return nextVal;
    last = last * w + (1 - w) * nextVal;
    numAccum++;
    const debiasWeight = w === 1 ? 1 : 1 - Math.pow(w, numAccum);
    return last / debiasWeight;
  });
}

const smooth = (ys: readonly number[], w: number) => [...smoothEma(Float64Array.from(ys), w)];

describe('smoothEma (TensorBoard debiased EMA)', () => {
  it('gives the values TensorBoard gives on fixed inputs', () => {
    expect(smooth([1, 0.5, 0], 0.6)).toEqual([
      1,
      0.6875,
      ((0.5 * 0.4 + 0.4 * 1 * 0.6) * 0.6 + 0) / (1 - Math.pow(0.6, 3)),
    ]);
    expect(smooth([0, 0.5, 1], 0.6)).toEqual([
      0,
      0.3125,
      (1 * 0.4 + 0.5 * 0.4 * 0.6) / (1 - Math.pow(0.6, 3)),
    ]);
  });

  it('starts on the data instead of being pulled towards zero', () => {
    expect(smooth([10, 10.5, 9.5], 0.99)[0]).toBeCloseTo(10, 12);
  });

  it('passes non-finite values through and leaves them out of the average', () => {
    const out = smooth([-Infinity, 1, NaN, Infinity, 0.5], 0.6);
    expect(out[0]).toBe(-Infinity);
    expect(out[1]).toBe(1);
    expect(out[2]).toBeNaN();
    expect(out[3]).toBe(Infinity);
    expect(out[4]).toBe(0.6875);
  });

  it('leaves a constant series exactly as it is', () => {
    expect(smooth([0.3, 0.3, 0.3], 0.1)).toEqual([0.3, 0.3, 0.3]);
  });

  it('does not smooth at weight 0 and gives 0 at weight 1', () => {
    expect(smooth([1, 0.5, 0], 0)).toEqual([1, 0.5, 0]);
    // TensorBoard adds each value to 0 even at weight 0, so −0 comes out +0 (found by the property below).
    expect(smooth([-0, NaN], 0)).toEqual([0, NaN]);
    expect(smooth([1, 0.5, 0], 1)).toEqual([0, 0, 0]);
  });

  it('clips weights outside [0, 1] as TensorBoard does', () => {
    for (const w of [NaN, -1, -Infinity, Infinity]) expect(smooth([1, 0.5], w)).toEqual([1, 0.5]);
    expect(smooth([1, 0.5], 2)).toEqual([0, 0]);
  });

  it('equals the reference on any series and weight', () => {
    const value = fc.oneof(
      { weight: 8, arbitrary: fc.double({ min: -1e6, max: 1e6, noNaN: true }) },
      { weight: 1, arbitrary: fc.constantFrom(NaN, Infinity, -Infinity) },
    );
    fc.assert(
      fc.property(
        fc.array(value, { maxLength: 200 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (ys, w) => {
          expect(smooth(ys, w)).toEqual(tensorBoardSmoothing(ys, w));
        },
      ),
    );
  });
});
