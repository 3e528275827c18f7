/**
 * The one error class: a catalogue code, the data it carries, and the message
 * the catalogue makes of them. Callers test codes and categories with the
 * helpers here, never `instanceof` a class per failure or a message text, so
 * an error keeps its meaning after it crossed a worker boundary (`wire.ts`).
 */
import { errorSpecs, type ErrorCategory, type ErrorCode, type ErrorData } from './catalogue';

/** An error from the catalogue: `code` says which, `data` its facts. */
export class FlowbenchError<C extends ErrorCode = ErrorCode> extends Error {
  override name = 'FlowbenchError';
  readonly category: ErrorCategory;

  constructor(
    readonly code: C,
    readonly data: ErrorData<C>,
    options?: ErrorOptions,
  ) {
    const spec = errorSpecs[code];
    super(spec.message(data), options);
    this.category = spec.category;
  }
}

/**
 * A catalogue error of one of `Codes`, as a union over them: a `switch` on
 * `code` narrows `data` to that code's.
 */
export type FlowbenchErrorOf<Codes extends ErrorCode = ErrorCode> = {
  [C in Codes]: FlowbenchError<C>;
}[Codes];

// `instanceof` a generic class narrows to `FlowbenchError<any>`; this keeps the code typed.
const isInstance = (error: unknown): error is FlowbenchError => error instanceof FlowbenchError;

/** Whether `error` is a catalogue error, of one of `codes` when any are given. */
export function isFlowbenchError<C extends ErrorCode>(
  error: unknown,
  ...codes: readonly C[]
): error is FlowbenchErrorOf<C> {
  return (
    isInstance(error) &&
    (codes.length === 0 || (codes as readonly ErrorCode[]).includes(error.code))
  );
}

/** Whether `error` is a catalogue error of `category`. */
export function hasCategory(error: unknown, category: ErrorCategory): error is FlowbenchErrorOf {
  return isInstance(error) && error.category === category;
}

/** Whether a consumer may wait `error` out: a later try can succeed. */
export function isTransient(error: unknown): boolean {
  return isFlowbenchError(error) && errorSpecs[error.code].transient === true;
}
