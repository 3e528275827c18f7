/**
 * Metric records. A metric point is the `step`-th emission of a number on
 * `name` (`node.port`): what the run driver makes, what export and import
 * carry and what readers get back. The value may be NaN, ±Infinity or -0 (a
 * diverging loss is worth keeping), which zod's `number()` refuses, so the
 * value is checked only to be a number.
 *
 * The table `metrics` stores a series as chunks (see `series/chunk.ts`): one
 * row per run of consecutive points, keyed `[runId+name+step]` by its first
 * step — the key a point row had, so the store and its indexes stayed as they
 * were when points became chunks (database version 7).
 */
import { z } from '../schema';
import { CHUNK_POINTS, packChunks, type MetricChunk } from '../series/chunk';
import { runIdSchema } from './ids';
import { defineRecord, type RecordFields } from './migration';

/** Any JavaScript number, NaN and ±Infinity included. */
const anyNumber = z.custom<number>((value) => typeof value === 'number', 'expected a number');

export const metricRowSchema = z.object({
  runId: runIdSchema,
  name: z.string(),
  step: z.int().check(z.nonnegative()),
  value: anyNumber,
  /** Epoch seconds. */
  ts: z.number(),
});
/** A metric point: the `step`-th emission of `name` (`node.port`); `ts` in epoch seconds. */
export type MetricRow = z.output<typeof metricRowSchema>;

const float64s = z.custom<Float64Array>(
  (value) => value instanceof Float64Array,
  'expected a Float64Array',
);
const stepColumn = z.custom<Int32Array | Float64Array>(
  (value) => value instanceof Int32Array || value instanceof Float64Array,
  'expected an Int32Array or a Float64Array',
);

/** Whether a chunk's columns agree: as many values, times and steps, steps rising from `step` to `last`. */
function coherent(chunk: MetricChunk): boolean {
  const n = chunk.values.length;
  if (n === 0 || chunk.times.length !== n) return false;
  if (!chunk.steps) return chunk.last === chunk.step + n - 1;
  const steps = chunk.steps;
  if (steps.length !== n || steps[0] !== chunk.step || steps[n - 1] !== chunk.last) return false;
  for (let i = 1; i < n; i++) if (!(steps[i]! > steps[i - 1]!)) return false;
  return true;
}

export const metricChunkRowSchema = z
  .object({
    runId: runIdSchema,
    name: z.string(),
    /** The chunk's first step (the key). */
    step: z.int().check(z.nonnegative()),
    last: z.int().check(z.nonnegative()),
    /** Each point's step where they are not consecutive; `null` when they are. */
    steps: z.nullable(stepColumn),
    values: float64s,
    /** Each point's wall time, epoch seconds. */
    times: float64s,
  })
  .check(
    z.refine(
      coherent,
      'expected values, times and steps of one length, steps rising from `step` to `last`',
    ),
  );
/** A stored chunk of one series: consecutive points of `name` in run `runId`. */
export type MetricChunkRow = z.output<typeof metricChunkRowSchema>;

/** A point row (record v1) as a chunk of one point; a value that is no number is left for the check. */
function chunkOfPoint(point: RecordFields): RecordFields {
  const { value, ts, ...key } = point;
  return {
    ...key,
    last: point.step,
    steps: null,
    values: typeof value === 'number' ? Float64Array.of(value) : value,
    times: typeof ts === 'number' ? Float64Array.of(ts) : ts,
  };
}

/** Rows in key order, adjacent chunks of one series packed together; a row that fails the check is left as it is. */
function packSeries(rows: RecordFields[]): RecordFields[] {
  const out: RecordFields[] = [];
  let series: MetricChunkRow[] = [];
  const close = () => {
    const first = series[0];
    if (first)
      for (const chunk of packChunks(series, CHUNK_POINTS))
        out.push({ runId: first.runId, name: first.name, ...chunk });
    series = [];
  };
  for (const row of rows) {
    const checked = metricChunkRowSchema.safeParse(row);
    if (!checked.success) {
      close();
      out.push(row);
      continue;
    }
    const first = series[0];
    if (first && (first.runId !== checked.data.runId || first.name !== checked.data.name)) close();
    series.push(checked.data);
  }
  close();
  return out;
}

/** Points travel in run files as `[step, value, ts]` tuples: a change to a point needs a run file step too. */
export const metricRecord = defineRecord({
  name: 'metric series chunk',
  schema: metricChunkRowSchema,
  migrations: [
    {
      to: 2,
      db: 7,
      change:
        'a series is stored as chunks of up to 2,048 points (typed columns), not one row per point; run files still carry points',
      up: chunkOfPoint,
      regroup: packSeries,
    },
  ],
});
