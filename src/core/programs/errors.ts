/**
 * Why a request did not finish, as catalogue codes the UI and the run record
 * can act on.
 *
 * Errors are data inside the runner (a request's result carries `{ code,
 * message }`); a `ProgramError` is the catalogue error at the edges. The
 * machinery's own codes (`stepErrorCodes`) are told apart from whatever a
 * step's body throws, which becomes `step-failed` with the step named.
 */
import { FlowbenchError, isFlowbenchError, type FlowbenchErrorOf } from '../errors';

/**
 * `infeasible`: a step can never fit the pool. `deadlock`: no request made
 * progress for several ticks. `step-failed`: a step threw (an ORT error, a
 * bad input). `model-load-failed`: a session could not be created.
 * `invalid-program`: the program is malformed.
 */
export const stepErrorCodes = [
  'infeasible',
  'deadlock',
  'step-failed',
  'model-load-failed',
  'invalid-program',
] as const;
export type StepErrorCode = (typeof stepErrorCodes)[number];

/** A request's failure: one of the machinery's codes, or `cancelled` when its signal fired. */
export type ProgramErrorCode = StepErrorCode | 'cancelled';
export type ProgramError = FlowbenchErrorOf<ProgramErrorCode>;

/** The machinery's error `code`, saying `problem`. */
export function programError(code: StepErrorCode, problem: string): ProgramError {
  return new FlowbenchError(code, { problem });
}

/** Whether `error` was raised by the program machinery (and so needs no wrapping). */
export function isStepError(error: unknown): error is FlowbenchErrorOf<StepErrorCode> {
  return isFlowbenchError(error, ...stepErrorCodes);
}

/** The message of anything thrown. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
