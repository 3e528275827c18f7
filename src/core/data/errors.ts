/**
 * The data engine's errors, each with a `code` the worker protocol can carry.
 * Only `DataUnavailableError` is transient: the consumer retries it within the
 * data wait bound; every other error means waiting longer cannot help, so it
 * propagates at once.
 */
import { describeIssues, type FlowIssue } from '../flow/issues';

/** A data engine or controller config was refused; each issue names its field. */
export class DataConfigError extends Error {
  readonly code = 'invalid-data-config';
  override name = 'DataConfigError';
  constructor(readonly issues: readonly FlowIssue[]) {
    super(`The data engine config is not valid:\n${describeIssues(issues)}`);
  }
}

/** Nothing can be served right now (no data yet, or every episode's budget is spent); a refill may fix it. */
export class DataUnavailableError extends Error {
  readonly code = 'data-unavailable';
  readonly transient = true;
  override name = 'DataUnavailableError';
}

/** The production ceiling is reached and the final supply is spent: no more data will come. */
export class DataExhaustedError extends Error {
  readonly code = 'data-exhausted';
  override name = 'DataExhaustedError';
}

/** A wait for data or for a batch's quota ran past `data_wait_timeout`. */
export class DataWaitTimeoutError extends Error {
  readonly code = 'data-wait-timeout';
  override name = 'DataWaitTimeoutError';
}

/** A generation was not ready within `generation_timeout` (or the caller's deadline). */
export class GenerationTimeoutError extends Error {
  readonly code = 'generation-timeout';
  override name = 'GenerationTimeoutError';
  constructor(
    readonly generation: number,
    message: string,
  ) {
    super(message);
  }
}

/** A producer threw (or its worker died); the run fails with the producer's own message. */
export class ProducerError extends Error {
  readonly code = 'producer-failed';
  override name = 'ProducerError';
  constructor(
    readonly producer: number,
    readonly generation: number,
    override readonly cause: unknown,
  ) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`Producer ${producer} failed while producing generation ${generation}: ${reason}`);
  }
}

/** The engine was closed (its run ended); nothing more will be produced or served. */
export class DataEngineClosedError extends Error {
  readonly code = 'data-engine-closed';
  override name = 'DataEngineClosedError';
  constructor() {
    super('The data engine is closed');
  }
}

/** Whether `error` is one the consumer may wait out. */
export function isTransient(error: unknown): boolean {
  return error instanceof DataUnavailableError;
}
