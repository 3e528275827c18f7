/**
 * The x axis on a log scale. Curves are moved into log space (x → log10 x)
 * before a frame is cut and decimated, rather than handing uPlot a log
 * distribution: the plot stays linear in what it is given, so decimation
 * buckets, zoom ranges and hover all work per pixel, as on a linear axis,
 * and the first hundred steps of a long run get the width a log axis gives
 * them instead of one bucket. The cost: ticks are placed and labelled here,
 * back in the person's units. A point at x ≤ 0 (step 0, the first point of
 * relative time) has no place on a log axis and is left out of the drawing;
 * the exports and the summary read the curves as recorded.
 */
import type { Curve } from './plot-model';

/** `curve` in log space: x → log10 x, its points at x ≤ 0 (or not finite) left out. */
export function curveOnLogX(curve: Curve): Curve {
  const keep: number[] = [];
  for (let i = 0; i < curve.x.length; i++) {
    const x = curve.x[i]!;
    if (x > 0 && Number.isFinite(x)) keep.push(i);
  }
  const pick = (column: Float64Array) => Float64Array.from(keep, (i) => column[i]!);
  return {
    ...curve,
    x: Float64Array.from(keep, (i) => Math.log10(curve.x[i]!)),
    raw: pick(curve.raw),
    smoothed: curve.smoothed ? pick(curve.smoothed) : null,
    band: curve.band ? { low: pick(curve.band.low), high: pick(curve.band.high) } : null,
  };
}

/**
 * Where the ticks go on a log axis showing `[min, max]` (in log space): at
 * 1, 2 and 5 times each power of ten, or at the powers of ten alone when the
 * axis spans more than three decades. Returned in log space.
 */
export function logTicks(min: number, max: number): number[] {
  if (!(max >= min)) return [];
  const mantissas = max - min > 3 ? [1] : [1, 2, 5];
  const ticks: number[] = [];
  for (let decade = Math.floor(min); decade <= Math.ceil(max); decade++)
    for (const m of mantissas) {
      const tick = decade + Math.log10(m);
      if (tick >= min - 1e-9 && tick <= max + 1e-9) ticks.push(tick);
    }
  return ticks;
}

/** A tick's label: the value it stands for, short (`1`, `20`, `500`, `1e6`). */
export function logTickLabel(tick: number): string {
  const value = 10 ** tick;
  if (value >= 1e5 || value < 1e-3) return value.toExponential(0).replace('e+', 'e');
  return String(Number(value.toPrecision(2)));
}
