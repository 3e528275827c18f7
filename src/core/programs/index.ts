/**
 * Programs over resident models (docs/architecture.md): the program model, the runner
 * with its serial and interleaved modes, admission control over a device
 * memory pool, the serial/interleaved parity check, MLP program steps and
 * the loop that runs a model over a sequence, carrying its state.
 */
export { defaultPoolBudget, GPU_FALLBACK_BUDGET, WASM_HEAP_BUDGET } from './budget.ts';
export {
  isStepError,
  programError,
  stepErrorCodes,
  type ProgramError,
  type ProgramErrorCode,
  type StepErrorCode,
} from './errors.ts';
export {
  createProgramHost,
  unboundedProgramHost,
  type BackendPool,
  type ProgramHost,
  type ProgramHostOptions,
  type ProgramJob,
} from './host.ts';
export {
  deviceFedUnitsOutput,
  gpuFedUnitsOutput,
  mlpEvaluateStep,
  mlpTrainLoop,
  mlpTrainStepSession,
  outputWeights,
  readWeights,
  trainedWeights,
  transferOutputs,
  type MlpBatch,
  type MlpEvaluateOptions,
  type MlpHyperparameters,
  type MlpTrainLoopOptions,
} from './mlp-steps.ts';
export { stateStepsOutput, stateTensorOutput, trainedOptimizerState } from './carried-state.ts';
export { DATASET_SHARE, datasetDeviceBytes } from './loop-dataset.ts';
export { LoopPace, type LoopPaceOptions, type LoopPaceSummary } from './loop-pace.ts';
export { loopProgress, mlpInferenceModel, mlpTrainStepModel, nodeRequest } from './mlp-jobs.ts';
export {
  frameValue,
  sequenceLoop,
  sequenceSession,
  type SequenceLoopOptions,
} from './sequence-loop.ts';
export {
  compareRuns,
  parityCheck,
  type ParityDifference,
  type ParityEntry,
  type ParityReport,
} from './parity.ts';
export {
  summariseNodeParity,
  summariseRunParity,
  type NodeParity,
  type ParityLine,
  type RunParity,
} from './parity-summary.ts';
export type { BookingRequest, ExternalBooking, PoolLedger } from './ledger.ts';
export {
  DeviceMemoryPool,
  formatBytes,
  type Hold,
  type HoldKind,
  type Holder,
  type PoolSnapshot,
  type Wait,
} from './pool.ts';
export {
  component,
  loop,
  modelId,
  requestId,
  type ComponentStep,
  type LoopBody,
  type LoopDataset,
  type LoopStep,
  type ModelDef,
  type ModelId,
  type Program,
  type ProgramRequest,
  type ProgramStep,
  type ProgramValue,
  type RequestId,
  type StepContext,
} from './program.ts';
export type { RequestProgress, RequestResult, RequestStatus } from './request-run.ts';
export { ModelShelf, type LoadedModel, type SharedModels } from './shared-models.ts';
export { StepRate } from './step-rate.ts';
export {
  ProgramRunner,
  type ProgramRunnerOptions,
  type RunMode,
  type RunReport,
  type TickReport,
} from './runner.ts';
