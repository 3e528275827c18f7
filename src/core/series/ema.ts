/**
 * Smoothing as TensorBoard does it: a debiased exponential moving average.
 *
 * A plain EMA started at 0 is pulled towards 0 for its first points; dividing
 * by `1 - weight^k` after `k` finite points removes that bias, so the smoothed
 * curve starts on the data. Non-finite values are passed through unsmoothed
 * and do not enter the average (one NaN must not poison the rest of the
 * curve), and a constant series is returned as it is, so smoothing adds no
 * floating-point noise to a flat line. People compare our curves with the ones
 * they know from TensorBoard, so the numbers must be the same, not just close.
 */

/**
 * `values` smoothed with TensorBoard's debiased EMA. `weight` is clipped to
 * [0, 1] (not a number counts as 0): 0 returns the values (−0 as +0: TensorBoard
 * adds each value to 0 even then), 1 gives 0 for every finite value, as TensorBoard does.
 */
export function smoothEma(values: ArrayLike<number>, weight: number): Float64Array {
  const w = Number.isFinite(weight) ? Math.min(1, Math.max(0, weight)) : 0;
  const n = values.length;
  const out = new Float64Array(n);
  let constant = true;
  for (let i = 0; i < n; i++) {
    out[i] = values[i]!;
    // `==` semantics as TensorBoard's check: NaN breaks constancy.
    if (constant && values[i] !== values[0]) constant = false;
  }
  if (constant) return out;

  let last = 0;
  let accumulated = 0;
  for (let i = 0; i < n; i++) {
    const value = values[i]!;
    if (!Number.isFinite(value)) continue;
    last = last * w + (1 - w) * value;
    accumulated++;
    out[i] = last / (w === 1 ? 1 : 1 - Math.pow(w, accumulated));
  }
  return out;
}
