/**
 * The wait interval record (table `intervals`): a span of a run spent
 * waiting (`data_wait`, `quota_wait` …), in epoch seconds. The table numbers
 * its rows itself (`++id`); the id means nothing outside this browser.
 */
import { z } from '../schema';
import { runIdSchema } from './ids';
import { defineRecord } from './migration';

export const intervalRowSchema = z.object({
  runId: runIdSchema,
  kind: z.string(),
  start: z.number(),
  end: z.number(),
});
export type IntervalRow = z.output<typeof intervalRowSchema>;

/** An interval as the table holds it: with the number the table gave it. */
export const storedIntervalSchema = z.extend(intervalRowSchema, {
  id: z.optional(z.int()),
});
export type IntervalRecord = z.output<typeof storedIntervalSchema>;

export const intervalRecord = defineRecord({
  name: 'wait interval',
  schema: storedIntervalSchema,
  migrations: [],
});
