/**
 * The pool booking record (table `poolBookings`, since database version 5):
 * bytes of a device pool's budget that one engine (one tab's worker) holds,
 * so the engines of every tab of a browser admit programs against one
 * budget. A booking lives as long as its engine: the engine keeps its lease
 * fresh, and a booking whose lease ran out and whose engine holds no Web
 * Lock any more counts for nothing and is swept. Local to a browser; never
 * in a file.
 */
import { z } from '../schema';
import { defineRecord } from './migration';

export const poolBookingRowSchema = z.object({
  /** Unique across engines: `<engine>/<n>`. */
  id: z.string(),
  /** The engine that holds it (a random id, one per engine worker). */
  engine: z.string(),
  backend: z.enum(['webgpu', 'wasm']),
  bytes: z.number().check(z.nonnegative()),
  /** `model`: a resident model; `state`: a loop's reservation; `activation`: a step's peak. */
  kind: z.enum(['model', 'state', 'activation']),
  /** Who holds it: a request id or a model's label. */
  holder: z.string(),
  label: z.string(),
  /** The run and node it works for, when it works for one. */
  run: z.nullable(z.string()),
  node: z.nullable(z.string()),
  /** Epoch ms until which it counts even if its engine holds no lock. */
  leaseUntil: z.number(),
  /** Epoch ms when its engine last moved on this backend (a unit ran, a hold came or went). */
  activeAt: z.number(),
});
/** Bytes of a pool's budget one engine holds. */
export type PoolBookingRow = z.output<typeof poolBookingRowSchema>;

export const poolBookingRecord = defineRecord({
  name: 'pool booking',
  schema: poolBookingRowSchema,
  migrations: [],
});
