/**
 * The metric point record (table `metrics`): the `step`-th emission of a
 * number on `name` (`node.port`), keyed by `[runId+name+step]`. The value may
 * be NaN, ±Infinity or -0 (a diverging loss is worth keeping), which zod's
 * `number()` refuses, so the value is checked only to be a number.
 */
import { z } from '../schema';
import { runIdSchema } from './ids';
import { defineRecord } from './migration';

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

/** Points travel in run files as `[step, value, ts]` tuples: a change here needs a run file step too. */
export const metricRecord = defineRecord({
  name: 'metric point',
  schema: metricRowSchema,
  migrations: [],
});
