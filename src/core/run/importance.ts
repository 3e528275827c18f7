/**
 * Which params drive a metric across a sweep: each param's correlation with
 * the metric, and its importance in a small random forest fitted to predict
 * the metric from the params (the forest's mean decrease in variance,
 * normalised to sum to 1).
 *
 * Correlation sees a straight-line relation only; the forest also sees a
 * bend (a learning rate good in the middle) and a param that matters only
 * together with another. The forest is our own, some hundred lines: a sweep
 * has tens to a few thousand runs and a handful of params, it must be seeded
 * (the same sweep ranks the same way every time) and must give importances
 * for regression; a library for it brings a matrix package and more along.
 * A categorical param is split on its values' sorted order, which a forest
 * handles well enough for ranking.
 */
import { createRandom, type Random } from '../random';

/** One run as the forest reads it: its params (numbers or categories) and the metric. */
export interface ImportanceRow {
  readonly params: Readonly<Record<string, number | string | boolean>>;
  readonly metric: number;
}

export interface ImportanceOptions {
  readonly trees?: number;
  readonly maxDepth?: number;
  /** Fewest runs in a leaf. */
  readonly minLeaf?: number;
  readonly seed?: number;
  /**
   * Params tried at each split; all of them by default. With a handful of
   * params, trying a random few lets a noise param take splits that belong
   * to the param that drives the metric whenever that one is not among them,
   * and its importance swells (a third of it, on the unit test's sweep); the
   * bootstrap samples alone still make the trees differ.
   */
  readonly paramsPerSplit?: number;
}

/** One param's standing. */
export interface ParamImportance {
  readonly param: string;
  /** Pearson's r between the param (a category: its sorted index) and the metric; 0 when either is constant. */
  readonly correlation: number;
  /** Its share of the forest's variance reduction, 0 … 1; the shares sum to 1 (all 0 when nothing splits). */
  readonly importance: number;
}

/** The params, most important first (ties by |correlation|, then name). */
export function paramImportance(
  rows: readonly ImportanceRow[],
  params: readonly string[],
  options: ImportanceOptions = {},
): ParamImportance[] {
  const { trees = 100, maxDepth = 6, minLeaf = 2, seed = 0 } = options;
  const usable = rows.filter((row) => Number.isFinite(row.metric));
  const columns = params.map((param) => encode(usable.map((row) => row.params[param])));
  const y = Float64Array.from(usable.map((row) => row.metric));
  const gains = new Float64Array(params.length);
  const random = createRandom(seed);
  const perTree = Math.max(1, Math.min(params.length, options.paramsPerSplit ?? params.length));
  for (let t = 0; t < trees && usable.length > 1; t++) {
    const sample = Array.from({ length: usable.length }, () =>
      Math.floor(random() * usable.length),
    );
    grow(sample, 0, { columns, y, gains, random, maxDepth, minLeaf, perTree });
  }
  const total = gains.reduce((sum, g) => sum + g, 0);
  return params
    .map((param, i) => ({
      param,
      correlation: pearson(columns[i]!, y),
      importance: total > 0 ? gains[i]! / total : 0,
    }))
    .sort(
      (a, b) =>
        b.importance - a.importance ||
        Math.abs(b.correlation) - Math.abs(a.correlation) ||
        (a.param < b.param ? -1 : 1),
    );
}

/** A param's values as numbers: numbers as they are, anything else as its index in sorted order. */
function encode(values: readonly (number | string | boolean | undefined)[]): Float64Array {
  if (values.every((v) => typeof v === 'number'))
    return Float64Array.from(values as number[], (v) => (Number.isFinite(v) ? v : 0));
  const categories = [...new Set(values.map(String))].sort();
  return Float64Array.from(values, (v) => categories.indexOf(String(v)));
}

function pearson(x: Float64Array, y: Float64Array): number {
  const n = x.length;
  if (n < 2) return 0;
  let mx = 0;
  let my = 0;
  for (let i = 0; i < n; i++) {
    mx += x[i]!;
    my += y[i]!;
  }
  mx /= n;
  my /= n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = x[i]! - mx;
    const dy = y[i]! - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  return sxx > 0 && syy > 0 ? sxy / Math.sqrt(sxx * syy) : 0;
}

interface Growth {
  readonly columns: readonly Float64Array[];
  readonly y: Float64Array;
  readonly gains: Float64Array;
  readonly random: Random;
  readonly maxDepth: number;
  readonly minLeaf: number;
  /** Params tried at each split: a random few, so the trees differ. */
  readonly perTree: number;
}

/** Sum of squared deviations from the mean of `y` over `rows`. */
function spread(rows: readonly number[], y: Float64Array): number {
  let sum = 0;
  let squares = 0;
  for (const r of rows) {
    sum += y[r]!;
    squares += y[r]! * y[r]!;
  }
  return squares - (sum * sum) / rows.length;
}

/**
 * Split `rows` on the best of a few random params, crediting the param with
 * the variance the split removes, and recurse. Only the gains are kept: the
 * forest is grown for its importances, never to predict.
 */
function grow(rows: readonly number[], depth: number, g: Growth): void {
  if (depth >= g.maxDepth || rows.length < 2 * g.minLeaf) return;
  const before = spread(rows, g.y);
  if (before <= 1e-12) return;
  let best: { param: number; threshold: number; gain: number } | null = null;
  for (const param of pick(g.columns.length, g.perTree, g.random)) {
    const split = bestSplit(rows, g.columns[param]!, g.y, g.minLeaf);
    if (split && (!best || split.gain > best.gain)) best = { param, ...split };
  }
  if (!best || best.gain <= 1e-12) return;
  g.gains[best.param]! += best.gain;
  const column = g.columns[best.param]!;
  grow(
    rows.filter((r) => column[r]! <= best.threshold),
    depth + 1,
    g,
  );
  grow(
    rows.filter((r) => column[r]! > best.threshold),
    depth + 1,
    g,
  );
}

function pick(n: number, k: number, random: Random): number[] {
  const all = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [all[i], all[j]] = [all[j]!, all[i]!];
  }
  return all.slice(0, k);
}

/** The threshold on `column` that removes the most variance, scanning the sorted rows once. */
function bestSplit(
  rows: readonly number[],
  column: Float64Array,
  y: Float64Array,
  minLeaf: number,
): { threshold: number; gain: number } | null {
  const sorted = [...rows].sort((a, b) => column[a]! - column[b]!);
  let totalSum = 0;
  let totalSquares = 0;
  for (const r of sorted) {
    totalSum += y[r]!;
    totalSquares += y[r]! * y[r]!;
  }
  const n = sorted.length;
  const before = totalSquares - (totalSum * totalSum) / n;
  let leftSum = 0;
  let leftSquares = 0;
  let best: { threshold: number; gain: number } | null = null;
  for (let i = 0; i < n - 1; i++) {
    const r = sorted[i]!;
    leftSum += y[r]!;
    leftSquares += y[r]! * y[r]!;
    const left = i + 1;
    const here = column[r]!;
    const next = column[sorted[i + 1]!]!;
    if (here === next || left < minLeaf || n - left < minLeaf) continue;
    const rightSum = totalSum - leftSum;
    const rightSquares = totalSquares - leftSquares;
    const after =
      leftSquares -
      (leftSum * leftSum) / left +
      (rightSquares - (rightSum * rightSum) / (n - left));
    const gain = before - after;
    if (!best || gain > best.gain) best = { threshold: (here + next) / 2, gain };
  }
  return best;
}

/** What the page asks the importance worker. */
export interface ImportanceRequest {
  readonly id: number;
  readonly rows: readonly ImportanceRow[];
  readonly params: readonly string[];
  readonly options?: ImportanceOptions;
}

/** The worker's answer to request `id`. */
export type ImportanceReply =
  | { readonly id: number; readonly ok: true; readonly result: ParamImportance[] }
  | { readonly id: number; readonly ok: false; readonly message: string };
