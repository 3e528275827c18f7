/**
 * The colour ramp of the parallel coordinates: blue (low) through yellow to
 * red (high), grey for a run without a value. Shared by the view and the
 * report, so a report's lines are the colours the person saw.
 */

const STOPS = [
  [44, 123, 182],
  [240, 200, 60],
  [215, 25, 28],
] as const;

/** The ramp's colour at `at` (0 … 1) as `rgb(r,g,b)`; grey when undefined. */
export function rampColour(at: number | undefined): string {
  if (at === undefined) return 'rgb(140,140,140)';
  const f = Math.min(1, Math.max(0, at)) * 2;
  const [from, to] = f < 1 ? [STOPS[0], STOPS[1]] : [STOPS[1], STOPS[2]];
  const t = f < 1 ? f : f - 1;
  const c = from.map((v, i) => Math.round(v + (to[i]! - v) * t));
  return `rgb(${c.join(',')})`;
}
