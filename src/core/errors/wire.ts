/**
 * Errors across a worker boundary. A catalogue error travels as its code and
 * data (plain, structured-cloneable values) and is made again on the other
 * side as the same `FlowbenchError`, so a caller there tests the same code
 * and reads the same data. Anything else thrown travels as `unexpected`,
 * keeping its class name and message: the receiver always gets a catalogue
 * error, and an `Error`'s cause and stack stay where they were thrown.
 */
import { isErrorCode, type ErrorCode, type ErrorData } from './catalogue';
import { FlowbenchError, isFlowbenchError } from './flowbench-error';

/** An error as it crosses a worker boundary. */
export interface SerializedError<C extends ErrorCode = ErrorCode> {
  code: C;
  data: ErrorData<C>;
  /** The message as the sender read it, for a receiver that only shows it. */
  message: string;
}

/** `error` as plain data to post; see the module comment. */
export function serializeError(error: unknown): SerializedError {
  if (isFlowbenchError(error)) return wire(error);
  const name = error instanceof Error ? error.name : typeof error;
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'unexpected', data: { name, message }, message };
}

function wire<C extends ErrorCode>(error: FlowbenchError<C>): SerializedError<C> {
  return { code: error.code, data: error.data, message: error.message };
}

/** The catalogue error `serialized` was made from. */
export function reviveError(serialized: SerializedError): FlowbenchError {
  // The sender is this app's own worker, from the same build: its codes are ours. A stray
  // message (from a stale worker, a bug) still becomes an error that says what it said.
  if (!isErrorCode(serialized.code))
    return new FlowbenchError('unexpected', { name: 'Error', message: serialized.message });
  return new FlowbenchError(serialized.code, serialized.data);
}
