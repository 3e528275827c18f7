/**
 * Comparing two recordings of a metric, value for value, as a re-run does to
 * prove a run reproduces. Equality is `Object.is`, so NaN equals NaN and -0
 * differs from 0: the question is "is this the same series bit for bit".
 *
 * Two runs on different engines (onnxruntime-node's native CPU kernels and
 * onnxruntime-web's WASM ones, or WebGPU and WASM) add and multiply floats in
 * another order, so their series are never bit for bit the same; for them the
 * comparison also says whether every value agrees within `ENGINE_TOLERANCE`.
 */

/**
 * The relative difference two engines' series may show and still be called
 * in agreement: |a − b| ≤ tolerance × max(|a|, |b|) at every step. float32
 * kernels summed in another order differ by a few units in the last place
 * (2⁻²³ ≈ 1.2e-7 relative each); the spirals example trained 200 steps with
 * one seed on `cpu` and on `wasm` differs by at most 1.9e-7 relative. 1e-4
 * leaves room for that to grow over longer trainings, and stays far below
 * what a real change makes (another seed or learning rate: 1e-2 and more).
 */
export const ENGINE_TOLERANCE = 1e-4;

export type SeriesComparison =
  | { metric: string; same: true; count: number }
  | {
      metric: string;
      same: false;
      /** First step where they differ (or where one series ends). */
      step: number;
      recorded: number | undefined;
      rerun: number | undefined;
      /**
       * Asked for (runs on different engines) and met: every value agrees
       * within `tolerance`, the largest relative difference being `largest`.
       */
      within?: { tolerance: number; largest: number };
    };

/** Where the engine a run ran on is known: its backend (`webgpu`, `wasm`, `cpu`). */
interface RanOn {
  readonly engine: { readonly backend: string } | null;
}

/**
 * The tolerance two runs' series are held to beyond bit for bit: `ENGINE_TOLERANCE`
 * when both say where they ran and their backends differ; none otherwise (the
 * same engine must reproduce exactly).
 */
export function toleranceFor(a: RanOn | undefined, b: RanOn | undefined): number | undefined {
  const [left, right] = [a?.engine?.backend, b?.engine?.backend];
  return left && right && left !== right ? ENGINE_TOLERANCE : undefined;
}

/** The largest relative difference of two series of one length; Infinity where a value is not finite on one side only. */
function largestRelative(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let largest = 0;
  for (let step = 0; step < a.length; step++) {
    const [x, y] = [a[step]!, b[step]!];
    if (Object.is(x, y) || x === y) continue;
    const scale = Math.max(Math.abs(x), Math.abs(y));
    const relative = Number.isFinite(scale) ? Math.abs(x - y) / scale : Infinity;
    largest = Math.max(largest, Number.isNaN(relative) ? Infinity : relative);
  }
  return largest;
}

/**
 * Whether `rerun` is `recorded` bit for bit; when not and a `tolerance` is
 * given, whether the two (of one length) agree within it.
 */
export function compareSeries(
  metric: string,
  recorded: ArrayLike<number>,
  rerun: ArrayLike<number>,
  tolerance?: number,
): SeriesComparison {
  const length = Math.max(recorded.length, rerun.length);
  for (let step = 0; step < length; step++)
    if (!Object.is(recorded[step], rerun[step])) {
      const differs = {
        metric,
        same: false as const,
        step,
        recorded: recorded[step],
        rerun: rerun[step],
      };
      if (tolerance === undefined || recorded.length !== rerun.length) return differs;
      const largest = largestRelative(recorded, rerun);
      return largest <= tolerance ? { ...differs, within: { tolerance, largest } } : differs;
    }
  return { metric, same: true, count: length };
}

export function describeComparison(c: SeriesComparison): string {
  if (c.same) return `${c.metric}: identical (${c.count} points)`;
  if (c.within)
    return `${c.metric}: agrees within ${c.within.tolerance} relative (largest ${c.within.largest.toPrecision(2)}; different engines, so not bit for bit)`;
  const show = (v: number | undefined) => (v === undefined ? 'no point' : String(v));
  return `${c.metric}: differs from step ${c.step} (recorded ${show(c.recorded)}, re-run ${show(c.rerun)})`;
}
