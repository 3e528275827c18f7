/**
 * Metric series: every read and write of the metrics table.
 *
 * A series is stored as chunks (`core/series/chunk.ts`): one row per run of
 * up to 2,048 consecutive points, keyed `[runId+name+step]` by its first
 * step. A write is one transaction that reads the few chunks its points land
 * in (the open tail chunk, for a flush of new steps) and writes them back
 * with the points upserted, so a flush costs a row or two whatever its size,
 * and a step written again replaces its point wherever it is.
 *
 * Every read is a keyed range over chunks: the chunk holding the first step
 * asked for (the last one that starts at or before it), then the chunks that
 * start inside the range. So reading the points after step s costs what
 * those points cost, however long the series already is; the live views of
 * them are in `metrics-live.ts`.
 */
import { Dexie } from 'dexie';
import { FlowbenchError } from '../core/errors';
import type { MetricChunkRow } from '../core/records/metric';
import type { MetricRow, RunId } from '../core/run/record';
import {
  CHUNK_POINTS,
  chunksOf,
  columnsOfChunks,
  columnsOfPoints,
  metricColumnsOf,
  pointsOfChunks,
  touchedBy,
  upsertChunks,
  type MetricChunk,
  type PointColumns,
} from '../core/series/chunk';
import type { MetricColumns, MetricPoint } from '../core/series/columns';
import type { SeriesEnds } from '../core/series/live-series';
import type { FlowbenchDb } from './schema';

/** A range of steps, both ends included; an end left out is open. */
export interface StepRange {
  readonly from?: number;
  readonly to?: number;
}

/** `rows` by run and metric name, each series' points in the order given. */
export function bySeries(rows: readonly MetricRow[]): Map<string, MetricRow[]> {
  const series = new Map<string, MetricRow[]>();
  for (const row of rows) {
    const key = JSON.stringify([row.runId, row.name]);
    let points = series.get(key);
    if (!points) series.set(key, (points = []));
    points.push(row);
  }
  return series;
}

/** The chunk rows of one series that start within `[from, to]` (keys only: no open end past `to`). */
function chunksStarting(db: FlowbenchDb, runId: RunId, name: string, from: unknown, to: unknown) {
  return db.metrics
    .where('[runId+name+step]')
    .between([runId, name, from], [runId, name, to], true, true);
}

/** The chunk that holds `step` or, when none does, the last one before it. */
function chunkAtOrBefore(
  db: FlowbenchDb,
  runId: RunId,
  name: string,
  step: number,
): Promise<MetricChunkRow | undefined> {
  return chunksStarting(db, runId, name, Dexie.minKey, step).last();
}

/**
 * The chunks of one series that hold a step within `range`, in step order:
 * one cursor step for the chunk the range starts in, then a keyed range.
 */
async function chunksOverlapping(
  db: FlowbenchDb,
  runId: RunId,
  name: string,
  { from, to }: StepRange,
): Promise<MetricChunkRow[]> {
  const head = from === undefined ? undefined : await chunkAtOrBefore(db, runId, name, from);
  const rest = await db.metrics
    .where('[runId+name+step]')
    .between(
      [runId, name, from ?? Dexie.minKey],
      [runId, name, to ?? Dexie.maxKey],
      from === undefined,
      true,
    )
    .toArray();
  return head && head.last >= from! && head.step !== rest[0]?.step ? [head, ...rest] : rest;
}

/** Upsert one series' points: read the chunks they touch, write them back merged. */
async function upsertSeries(db: FlowbenchDb, points: readonly MetricRow[]): Promise<void> {
  const { runId, name } = points[0]!;
  const columns = columnsOfPoints(points);
  const from = columns.step[0]!;
  const to = columns.step.at(-1)!;
  const [before, inside] = await Promise.all([
    chunkAtOrBefore(db, runId, name, from),
    chunksStarting(db, runId, name, from, to).toArray(),
  ]);
  const touched = before && before.step !== inside[0]?.step ? [before, ...inside] : inside;
  await rewriteSeries(db, runId, name, touched, columns);
}

/**
 * Write `columns` (steps strictly increasing) into one series whose chunks
 * `touched` hold (in step order: at least every chunk the points' step range
 * touches); resolves with the chunks written.
 */
export async function rewriteSeries(
  db: FlowbenchDb,
  runId: RunId,
  name: string,
  touched: readonly MetricChunk[],
  columns: PointColumns,
): Promise<MetricChunk[]> {
  const from = columns.step[0]!;
  const to = columns.step.at(-1)!;
  const { removed, put } = upsertChunks(
    touched.filter((chunk) => touchedBy(chunk, from, to)),
    columns,
  );
  if (removed.length > 0)
    await db.metrics.bulkDelete(
      removed.map((step) => [runId, name, step] as [RunId, string, number]),
    );
  await db.metrics.bulkPut(put.map((chunk) => ({ runId, name, ...chunk })));
  return put;
}

/** The last chunk of one series, or `undefined` when it has none. */
export function lastChunk(
  db: FlowbenchDb,
  runId: RunId,
  name: string,
): Promise<MetricChunkRow | undefined> {
  return chunksStarting(db, runId, name, Dexie.minKey, Dexie.maxKey).last();
}

/**
 * Write points (the run driver's flush), in one transaction: a point already
 * stored at its (run, name, step) is replaced. The points of a series go into
 * its open tail chunk until it is full, then into new chunks.
 */
export async function putMetrics(db: FlowbenchDb, rows: readonly MetricRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.transaction('rw', db.metrics, async () => {
    for (const points of bySeries(rows).values()) await upsertSeries(db, points);
  });
}

/**
 * Add points whose series are not stored yet (an import, inside its
 * transaction), as full chunks; a series that holds a step twice is refused
 * (`metric-step-twice`), as a second row at one key was.
 */
export async function addMetrics(db: FlowbenchDb, rows: readonly MetricRow[]): Promise<void> {
  const chunks: MetricChunkRow[] = [];
  for (const points of bySeries(rows).values()) {
    const { runId, name } = points[0]!;
    const columns = columnsOfPoints(points);
    if (columns.step.length < points.length) {
      const seen = new Set<number>();
      const step = points.find((p) => seen.size === seen.add(p.step).size)!.step;
      throw new FlowbenchError('metric-step-twice', { runId, name, step });
    }
    for (const chunk of chunksOf(columns)) chunks.push({ runId, name, ...chunk });
  }
  await db.metrics.bulkAdd(chunks);
}

/** A chunk's points as rows of its run and series. */
function rowsOf(chunks: readonly MetricChunkRow[], range: StepRange = {}): MetricRow[] {
  const rows: MetricRow[] = [];
  let i = 0;
  while (i < chunks.length) {
    const { runId, name } = chunks[i]!;
    let j = i;
    while (j < chunks.length && chunks[j]!.runId === runId && chunks[j]!.name === name) j++;
    for (const p of pointsOfChunks(chunks.slice(i, j), range.from, range.to))
      rows.push({ runId, name, ...p });
    i = j;
  }
  return rows;
}

/** Every point of a run, in (name, step) order. */
export async function metricsOfRun(db: FlowbenchDb, runId: RunId): Promise<MetricRow[]> {
  // The `runId` index gives the run's chunks in key order, i.e. by (name, first step).
  return rowsOf(await db.metrics.where('runId').equals(runId).toArray());
}

/** How many points are stored, of one run or of all. */
export async function countMetricPoints(db: FlowbenchDb, runId?: RunId): Promise<number> {
  let count = 0;
  const chunks =
    runId === undefined ? db.metrics.toCollection() : db.metrics.where('runId').equals(runId);
  await chunks.each((chunk) => (count += chunk.values.length));
  return count;
}

/** Delete every point of every run (the benchmarks start each trial empty). */
export async function deleteAllMetrics(db: FlowbenchDb): Promise<void> {
  await db.metrics.clear();
}

/** Delete every point of the runs `ids`. */
export async function deleteMetricsOfRuns(db: FlowbenchDb, ids: readonly RunId[]): Promise<void> {
  await db.metrics.where('runId').anyOf(ids).delete();
}

/** How many chunk keys one step of {@link metricNames} reads. */
const NAME_KEYS_AT_ONCE = 64;

/**
 * Names of the metrics a run has points for, sorted, read from the chunks'
 * keys alone (their points are never loaded): a run's first keys at once,
 * which hold every name of a run with few long series, then skipping past
 * the last name found to the next keys (a walk of every chunk's key of a
 * long run would be long, and a live run writes while this runs).
 */
export async function metricNames(db: FlowbenchDb, runId: RunId): Promise<string[]> {
  const names: string[] = [];
  let from: [RunId, unknown, unknown] = [runId, Dexie.minKey, Dexie.minKey];
  for (;;) {
    const keys = await db.metrics
      .where('[runId+name+step]')
      // One `Dexie.maxKey` only: the same array twice in a key is not a valid IndexedDB key.
      .between(from, [runId, Dexie.maxKey], false, true)
      .limit(NAME_KEYS_AT_ONCE)
      .primaryKeys();
    for (const [, name] of keys) if (names.at(-1) !== name) names.push(name);
    if (keys.length < NAME_KEYS_AT_ONCE) return names;
    from = [runId, names.at(-1)!, Dexie.maxKey];
  }
}

/** One metric series of a run in step order, or the part of it within `range`: only the chunks that overlap it are read. */
export async function metricSeries(
  db: FlowbenchDb,
  runId: RunId,
  name: string,
  range: StepRange = {},
): Promise<MetricRow[]> {
  return rowsOf(await chunksOverlapping(db, runId, name, range), range);
}

/** {@link metricSeries} as the chart's columns: typed arrays copied from the chunks, no object per point. */
export async function metricSeriesColumns(
  db: FlowbenchDb,
  runId: RunId,
  name: string,
  range: StepRange = {},
): Promise<MetricColumns> {
  const chunks = await chunksOverlapping(db, runId, name, range);
  return metricColumnsOf(columnsOfChunks(chunks, range.from, range.to));
}

/**
 * At most `limit` points of a series with a step past `after` (from its start
 * when `undefined`), in step order, as columns: fewer only when the series
 * has no more. Reads the chunk holding the next step, then whole chunks.
 */
export async function metricColumnsAfter(
  db: FlowbenchDb,
  runId: RunId,
  name: string,
  after: number | undefined,
  limit: number,
): Promise<MetricColumns> {
  const from = after === undefined ? -Infinity : after + 1;
  const chunks: MetricChunk[] = [];
  let held = 0;
  const head = after === undefined ? undefined : await chunkAtOrBefore(db, runId, name, after + 1);
  if (head && head.last >= from) {
    chunks.push(head);
    // Only the head's points past `after` count.
    held += columnsOfChunks([head], from).step.length;
  }
  let start: unknown = head && head.last >= from ? head.step : (after ?? Dexie.minKey);
  while (held < limit) {
    // Enough chunks for the rest if they are full; a series with smaller chunks takes another read.
    const wanted = Math.ceil((limit - held) / CHUNK_POINTS) + 1;
    const next = await db.metrics
      .where('[runId+name+step]')
      .between(
        [runId, name, start],
        [runId, name, Dexie.maxKey],
        after === undefined && held === 0,
        true,
      )
      .limit(wanted)
      .toArray();
    for (const chunk of next) {
      chunks.push(chunk);
      held += chunk.values.length;
    }
    // Fewer chunks than asked for: the series has no more (no read that finds none).
    if (next.length < wanted) break;
    start = next.at(-1)!.step;
  }
  const columns = columnsOfChunks(chunks, from);
  const n = Math.min(limit, columns.step.length);
  return metricColumnsOf({
    step: columns.step.subarray(0, n),
    value: columns.value.subarray(0, n),
    ts: columns.ts.subarray(0, n),
  });
}

/** At most `limit` points of a series with a step past `after` (from its start when `undefined`), in step order. */
export async function metricPointsAfter(
  db: FlowbenchDb,
  runId: RunId,
  name: string,
  after: number | undefined,
  limit: number,
): Promise<MetricRow[]> {
  const c = await metricColumnsAfter(db, runId, name, after, limit);
  return Array.from(c.step, (step, i) => ({ runId, name, step, value: c.value[i]!, ts: c.ts[i]! }));
}

function firstPoint(chunk: MetricChunk | undefined): MetricPoint | undefined {
  return chunk && { step: chunk.step, value: chunk.values[0]!, ts: chunk.times[0]! };
}

function lastPoint(chunk: MetricChunk | undefined): MetricPoint | undefined {
  const n = chunk?.values.length ?? 0;
  return chunk && { step: chunk.last, value: chunk.values[n - 1]!, ts: chunk.times[n - 1]! };
}

/** The first and last point of a series: one cursor step each, however long it is. */
export async function metricSeriesEnds(
  db: FlowbenchDb,
  runId: RunId,
  name: string,
): Promise<SeriesEnds> {
  const [first, last] = await Promise.all([
    metricSeriesFirst(db, runId, name),
    metricSeriesLast(db, runId, name),
  ]);
  return { first, last };
}

/** The first point of a series: one cursor step, however long it is. */
export async function metricSeriesFirst(
  db: FlowbenchDb,
  runId: RunId,
  name: string,
): Promise<MetricPoint | undefined> {
  return firstPoint(await chunksStarting(db, runId, name, Dexie.minKey, Dexie.maxKey).first());
}

/** The last point of a series: one cursor step, however long it is. */
export async function metricSeriesLast(
  db: FlowbenchDb,
  runId: RunId,
  name: string,
): Promise<MetricPoint | undefined> {
  return lastPoint(await lastChunk(db, runId, name));
}

/**
 * The key of a run's last metric chunk in (name, step) order, `undefined` if
 * it has none: one key cursor step, its points never loaded, and a live read
 * of it wakes on every metric point the run writes.
 */
export async function lastMetricKeyOfRun(
  db: FlowbenchDb,
  runId: RunId,
): Promise<[RunId, string, number] | undefined> {
  const [key] = await db.metrics
    .where('[runId+name+step]')
    .between([runId, Dexie.minKey, Dexie.minKey], [runId, Dexie.maxKey], true, true)
    .reverse()
    .limit(1)
    .primaryKeys();
  return key;
}
