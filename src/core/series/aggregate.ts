/**
 * A sweep group's curve: the mean of its runs at each step, with the min–max
 * band around it.
 *
 * Runs are aligned by step (the n-th emission of a metric), the one x every
 * run of a flow shares; in time modes the group's x at a step is the mean of
 * its runs' x there. Non-finite values stay out of the mean and the band (one
 * diverged seed must not erase the others) and are counted instead; a step
 * where no run has a finite value is NaN, which the chart draws as a gap.
 */

/** One member run's series: its steps, its x in the chart's unit, its values. */
export interface MemberSeries {
  readonly step: ArrayLike<number>;
  readonly x: ArrayLike<number>;
  readonly y: ArrayLike<number>;
}

/** A group's curve, one row per step that any member has. */
export interface GroupSeries {
  readonly step: Float64Array;
  readonly x: Float64Array;
  readonly mean: Float64Array;
  readonly min: Float64Array;
  readonly max: Float64Array;
  /** How many member values went into each row's mean. */
  readonly count: Uint32Array;
  /** How many member values were not finite, over every step. */
  readonly nonFinite: number;
}

/** Mean, min and max of `members` at each step, steps ascending. */
export function aggregateByStep(members: readonly MemberSeries[]): GroupSeries {
  const unique = new Set<number>();
  for (const m of members) for (let i = 0; i < m.step.length; i++) unique.add(m.step[i]!);
  const steps = Float64Array.from(unique).sort();
  const row = new Map<number, number>();
  steps.forEach((s, i) => row.set(s, i));

  const n = steps.length;
  const sum = new Float64Array(n);
  const xSum = new Float64Array(n);
  const xCount = new Uint32Array(n);
  const min = new Float64Array(n).fill(Infinity);
  const max = new Float64Array(n).fill(-Infinity);
  const count = new Uint32Array(n);
  let nonFinite = 0;
  for (const m of members) {
    for (let i = 0; i < m.step.length; i++) {
      const r = row.get(m.step[i]!)!;
      xSum[r] = xSum[r]! + m.x[i]!;
      xCount[r] = xCount[r]! + 1;
      const v = m.y[i]!;
      if (!Number.isFinite(v)) {
        nonFinite++;
        continue;
      }
      sum[r] = sum[r]! + v;
      count[r] = count[r]! + 1;
      if (v < min[r]!) min[r] = v;
      if (v > max[r]!) max[r] = v;
    }
  }
  const x = new Float64Array(n);
  const mean = new Float64Array(n);
  for (let r = 0; r < n; r++) {
    x[r] = xSum[r]! / xCount[r]!;
    if (count[r] === 0) {
      mean[r] = min[r] = max[r] = NaN;
    } else mean[r] = sum[r]! / count[r]!;
  }
  return { step: steps, x, mean, min, max, count, nonFinite };
}
