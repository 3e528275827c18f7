/**
 * Cancellation as every part of a run sees it. A cancelled run aborts its
 * signal; whatever notices — a node body at a checkpoint, a data engine
 * waiting for episodes, a simulator between steps — throws the catalogue's
 * one `cancelled` error, so the executor can tell a cancel from a failure
 * without knowing who threw. It lives at the bottom of core because the data
 * engine and the programs throw it as much as the executor does.
 */
import { FlowbenchError } from '../errors';

/** The error thrown into a body (by `checkpoint`, or by a wait) once its run is cancelled. */
export function runCancelled(): FlowbenchError<'cancelled'> {
  return new FlowbenchError('cancelled', {});
}
