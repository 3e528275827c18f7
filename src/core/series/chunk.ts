/**
 * A metric series stored as chunks: each chunk holds a run of consecutive
 * points of one series as typed columns, so storage pays one row per
 * thousands of points instead of one row per point.
 *
 * A point's content is a step, a float64 value and a wall time (~20 bytes);
 * a row per point cost IndexedDB ~545 bytes and a read or write per point.
 * A chunk keeps values and wall times as `Float64Array`s (every bit pattern
 * exact: NaN payloads, ±Infinity and -0 included) and its steps as a first
 * step plus a count when they are consecutive — the run driver's case, a
 * step counts emissions — or as an `Int32Array` where there are gaps.
 *
 * The trade-off is the write: a point is no longer a row of its own, so a
 * write that lands inside or right after a chunk rewrites that chunk
 * ({@link upsertChunks}). Chunks are capped at {@link CHUNK_POINTS} points so
 * that rewrite stays small, and a write re-chunks only the chunks it touches:
 * the series' other chunks, and their keys, never move.
 */
import type { MetricColumns, MetricPoint } from './columns';

/** The most points one chunk holds: big enough that a row costs little per point, small enough to rewrite per flush. */
export const CHUNK_POINTS = 2048;

/** Consecutive points of one series, in step order. */
export interface MetricChunk {
  /** The chunk's first step (with the run and metric name, the chunk's key). */
  readonly step: number;
  /** The chunk's last step. */
  readonly last: number;
  /** Each point's step, when they are not `step, step + 1, …, last`; `null` when they are. */
  readonly steps: Int32Array | Float64Array | null;
  readonly values: Float64Array;
  /** Each point's wall time, epoch seconds. */
  readonly times: Float64Array;
}

/** Points as three parallel columns, steps strictly increasing. */
export interface PointColumns {
  readonly step: Float64Array;
  readonly value: Float64Array;
  readonly ts: Float64Array;
}

/** How many points `chunk` holds. */
export function chunkLength(chunk: MetricChunk): number {
  return chunk.values.length;
}

/** The step of `chunk`'s `i`-th point. */
export function stepAt(chunk: MetricChunk, i: number): number {
  return chunk.steps ? chunk.steps[i]! : chunk.step + i;
}

/** The largest step an `Int32Array` holds; a series with gaps past it keeps float64 steps. */
const INT32_MAX = 0x7fffffff;

/** Points `from` to `to` (exclusive) of `columns` as one chunk. */
export function chunkOf(columns: PointColumns, from = 0, to = columns.step.length): MetricChunk {
  const step = columns.step.subarray(from, to);
  const n = step.length;
  if (n === 0) throw new RangeError('a metric chunk holds at least one point');
  const first = step[0]!;
  const last = step[n - 1]!;
  const consecutive = last - first === n - 1;
  return {
    step: first,
    last,
    steps: consecutive ? null : last <= INT32_MAX ? Int32Array.from(step) : step.slice(),
    values: columns.value.slice(from, to),
    times: columns.ts.slice(from, to),
  };
}

/** `columns` cut into chunks of at most `max` points. */
export function chunksOf(columns: PointColumns, max = CHUNK_POINTS): MetricChunk[] {
  const chunks: MetricChunk[] = [];
  for (let i = 0; i < columns.step.length; i += max)
    chunks.push(chunkOf(columns, i, Math.min(columns.step.length, i + max)));
  return chunks;
}

/** The points of `chunks` (in step order, disjoint) whose step is within `[from, to]`, as columns. */
export function columnsOfChunks(
  chunks: readonly MetricChunk[],
  from = -Infinity,
  to = Infinity,
): PointColumns {
  const cuts = chunks.map((chunk) => cutOf(chunk, from, to));
  const n = cuts.reduce((sum, [a, b]) => sum + b - a, 0);
  const step = new Float64Array(n);
  const value = new Float64Array(n);
  const ts = new Float64Array(n);
  let at = 0;
  chunks.forEach((chunk, c) => {
    const [a, b] = cuts[c]!;
    if (b <= a) return;
    if (chunk.steps) step.set(chunk.steps.subarray(a, b), at);
    else for (let i = a; i < b; i++) step[at + i - a] = chunk.step + i;
    value.set(chunk.values.subarray(a, b), at);
    ts.set(chunk.times.subarray(a, b), at);
    at += b - a;
  });
  return { step, value, ts };
}

/** The index range `[a, b)` of `chunk`'s points with a step within `[from, to]`. */
function cutOf(chunk: MetricChunk, from: number, to: number): [number, number] {
  const n = chunkLength(chunk);
  if (!chunk.steps) {
    const a = Math.min(n, Math.max(0, Math.ceil(from - chunk.step)));
    const b = Math.min(n, Math.max(0, Math.floor(to - chunk.step) + 1));
    return [a, Math.max(a, b)];
  }
  const steps = chunk.steps;
  let a = 0;
  while (a < n && steps[a]! < from) a++;
  let b = a;
  while (b < n && steps[b]! <= to) b++;
  return [a, b];
}

/** `columns` as {@link MetricColumns}, counting the values that are NaN or ±Infinity. */
export function metricColumnsOf(columns: PointColumns): MetricColumns {
  let nonFinite = 0;
  for (const v of columns.value) if (!Number.isFinite(v)) nonFinite++;
  return { length: columns.step.length, ...columns, nonFinite };
}

/** The points of `chunks` as point objects (for export and for a few points at a time). */
export function pointsOfChunks(
  chunks: readonly MetricChunk[],
  from?: number,
  to?: number,
): MetricPoint[] {
  const c = columnsOfChunks(chunks, from, to);
  return Array.from(c.step, (step, i) => ({ step, value: c.value[i]!, ts: c.ts[i]! }));
}

/**
 * `points` as columns in step order, one per step: a step given twice keeps
 * the later point (an upsert, as a store keyed by step would).
 */
export function columnsOfPoints(points: readonly MetricPoint[]): PointColumns {
  const order = points.map((_, i) => i);
  // Stable: of two points at one step, the later stays later.
  order.sort((a, b) => points[a]!.step - points[b]!.step);
  const kept = order.filter(
    (index, k) => k === order.length - 1 || points[order[k + 1]!]!.step !== points[index]!.step,
  );
  const step = new Float64Array(kept.length);
  const value = new Float64Array(kept.length);
  const ts = new Float64Array(kept.length);
  kept.forEach((index, i) => {
    const p = points[index]!;
    step[i] = p.step;
    value[i] = p.value;
    ts[i] = p.ts;
  });
  return { step, value, ts };
}

/** The chunks a write of steps `[from, to]` must read: see {@link touchedBy}. */
export interface ChunkRewrite {
  /** Keys (first steps) of the chunks read that are gone after the write. */
  readonly removed: number[];
  /** Chunks to store (a chunk whose key was read is replaced). */
  readonly put: MetricChunk[];
}

/**
 * Whether a write of points with steps `[from, to]` must rewrite `chunk`: it
 * holds a step in that range, or it is the open chunk just before the range
 * (not full yet), so new points at the end of a series fill it up instead of
 * starting a small chunk of their own.
 */
export function touchedBy(
  chunk: MetricChunk,
  from: number,
  to: number,
  max = CHUNK_POINTS,
): boolean {
  if (chunk.step > to) return false;
  if (chunk.last >= from) return true;
  return chunkLength(chunk) < max;
}

/**
 * Upsert `points` (steps strictly increasing) into a series whose chunks
 * `touched` (in step order: every chunk {@link touchedBy} the points' step
 * range, and no other) hold: a point at a step already stored replaces it,
 * in whichever chunk it is; the rest are inserted in step order. The merged
 * points are cut again from the first touched chunk's first point, so a
 * flush fills the open chunk and starts new ones where it overflows.
 */
export function upsertChunks(
  touched: readonly MetricChunk[],
  points: PointColumns,
  max = CHUNK_POINTS,
): ChunkRewrite {
  const merged = mergeColumns(columnsOfChunks(touched), points);
  const put = chunksOf(merged, max);
  const kept = new Set(put.map((chunk) => chunk.step));
  return { removed: touched.map((c) => c.step).filter((step) => !kept.has(step)), put };
}

/** Two step-ordered column sets as one; at a step both hold, `b`'s point wins. */
function mergeColumns(a: PointColumns, b: PointColumns): PointColumns {
  const na = a.step.length;
  const nb = b.step.length;
  const step = new Float64Array(na + nb);
  const value = new Float64Array(na + nb);
  const ts = new Float64Array(na + nb);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < na || j < nb) {
    const sa = i < na ? a.step[i]! : Infinity;
    const sb = j < nb ? b.step[j]! : Infinity;
    const fromB = sb <= sa;
    if (sa === sb) i++;
    const src = fromB ? b : a;
    const at = fromB ? j++ : i++;
    step[k] = src.step[at]!;
    value[k] = src.value[at]!;
    ts[k] = src.ts[at]!;
    k++;
  }
  return { step: step.subarray(0, k), value: value.subarray(0, k), ts: ts.subarray(0, k) };
}

/**
 * Adjacent chunks of one series joined while they fit in `max` points: how
 * stored point rows become chunks in the database upgrade (each point first
 * a chunk of one), and how a series read back in pieces is packed again.
 */
export function packChunks(chunks: readonly MetricChunk[], max = CHUNK_POINTS): MetricChunk[] {
  const packed: MetricChunk[] = [];
  let group: MetricChunk[] = [];
  let size = 0;
  const close = () => {
    if (group.length === 1) packed.push(group[0]!);
    else if (group.length > 1) packed.push(chunkOf(columnsOfChunks(group)));
    group = [];
    size = 0;
  };
  for (const chunk of chunks) {
    if (size + chunkLength(chunk) > max) close();
    group.push(chunk);
    size += chunkLength(chunk);
  }
  close();
  return packed;
}
