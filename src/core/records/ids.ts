/**
 * Ids that cross boundaries, branded so a run id is never passed where a
 * flow id is meant. The brand exists only for the type checker; stored and
 * exported ids are plain strings.
 */
import { z } from '../schema';

/** A time-ordered run id (UUIDv7): newer ids sort after older ones. */
export const runIdSchema = z.string().check(z.minLength(1)).brand<'RunId'>();
export type RunId = z.output<typeof runIdSchema>;

/** A flow's id in the local library. */
export const flowIdSchema = z.string().check(z.minLength(1)).brand<'FlowId'>();
export type FlowId = z.output<typeof flowIdSchema>;
