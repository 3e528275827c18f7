/** Flowbench's errors: the catalogue of codes, the one error class, and their wire form. */
export {
  errorCatalogue,
  isErrorCode,
  runStorageFailures,
  type ErrorCategory,
  type ErrorCode,
  type ErrorData,
  type ErrorSpec,
  type NoData,
} from './catalogue';
export {
  FlowbenchError,
  hasCategory,
  isFlowbenchError,
  isTransient,
  type FlowbenchErrorOf,
} from './flowbench-error';
export { reviveError, serializeError, type SerializedError } from './wire';
