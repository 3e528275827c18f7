/**
 * Why a request did not finish, as codes the UI and the run record can act on.
 *
 * Errors are data inside the runner (a request's result carries `{ code,
 * message }`); `ProgramError` is the typed form at the edges.
 */

/**
 * `infeasible`: a step can never fit the pool. `deadlock`: no request made
 * progress for several ticks. `cancelled`: the request's signal fired.
 * `step-failed`: a step threw (an ORT error, a bad input). `model-load-failed`:
 * a session could not be created. `invalid-program`: the program is malformed.
 */
export type ProgramErrorCode =
  'infeasible' | 'deadlock' | 'cancelled' | 'step-failed' | 'model-load-failed' | 'invalid-program';

/** A request's failure, with a code. */
export class ProgramError extends Error {
  override name = 'ProgramError';
  constructor(
    readonly code: ProgramErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** The message of anything thrown. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
