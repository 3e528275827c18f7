/**
 * The models the GPU bench trains, as one shape: a built train step, its
 * starting weights, a batch's tensor dims and the step's useful work.
 *
 * Idea: every block's train step lists what it carries (`TrainStep.carried`:
 * weights, then optimizer state), so one loop trains the MLP and the CNN
 * alike by feeding each step's carried outputs into the next. FLOP are
 * counted from the products only (matmuls, convolutions, forward and
 * backward); the elementwise work is left out, so GFLOP/s is slightly low.
 */
import { cnnSides, cnnFeatureSize, initCnnWeights, type CnnSpec } from '../../src/core/onnx/cnn';
import { buildCnnTrainStep } from '../../src/core/onnx/cnn-train';
import {
  buildMlpTrainStep,
  initMlpWeights,
  type MlpSpec,
  type MlpWeights,
  type TrainStep,
} from '../../src/core/onnx/mlp';
import { createRandom } from '../../src/core/random';
import { mlpTrainFlops } from './flops';

export interface TrainModel {
  /** Shown in the table. */
  readonly label: string;
  readonly step: TrainStep;
  readonly initial: MlpWeights;
  /** A batch's features, batch first. */
  readonly xDims: readonly number[];
  /** A batch's one-hot targets `[batch, classes]`. */
  readonly yDims: readonly [number, number];
  /** FLOP of one step's products. */
  readonly flops: number;
}

const options = { optimizer: 'momentum', loss: 'softmax_cross_entropy' } as const;

/** An MLP `inputSize → hidden… → outputSize` on batches of `batch` rows. */
export function mlpModel(spec: MlpSpec, batch: number): TrainModel {
  return {
    label: `MLP ${[spec.inputSize, ...spec.hidden, spec.outputSize].join('-')}`,
    step: buildMlpTrainStep(spec, options),
    initial: initMlpWeights(spec, createRandom(0)),
    xDims: [batch, spec.inputSize],
    yDims: [batch, spec.outputSize],
    flops: mlpTrainFlops(spec, batch),
  };
}

/**
 * FLOP of one CNN train step: per block, the conv forward
 * (`2·b·h·w·filters·in·k²`, padding 'same'), its weight gradient (as much)
 * and, past the first block, its input gradient (as much); the head's Gemm
 * forward, weight gradient and input gradient (`2·b·features·outputs` each).
 */
export function cnnTrainFlops(spec: CnnSpec, batch: number): number {
  let flops = 0;
  for (let l = 0; l < spec.blocks; l++) {
    const [h, w] = cnnSides(spec, l);
    const inChannels = l === 0 ? spec.channels : spec.filters;
    const conv = 2 * batch * h * w * spec.filters * inChannels * spec.kernel * spec.kernel;
    flops += conv * (l === 0 ? 2 : 3);
  }
  return flops + 3 * 2 * batch * cnnFeatureSize(spec) * spec.outputSize;
}

/** The CNN of `model.cnn` on batches of `batch` images. */
export function cnnModel(spec: CnnSpec, batch: number): TrainModel {
  return {
    label: `CNN ${spec.channels}×${spec.height}×${spec.width}, ${spec.blocks}×${spec.filters} ${spec.kernel}×${spec.kernel}`,
    step: buildCnnTrainStep(spec, options),
    initial: initCnnWeights(spec, createRandom(0)),
    xDims: [batch, spec.channels, spec.height, spec.width],
    yDims: [batch, spec.outputSize],
    flops: cnnTrainFlops(spec, batch),
  };
}

/** Which model a bench row trains, as plain data (it crosses to the page's worker). */
export type ModelChoice =
  | { readonly kind: 'mlp'; readonly hidden: number; readonly batch: number }
  | { readonly kind: 'cnn'; readonly batch: number };

/** The CNN of the `cnn` bench rows: two blocks of 8 3×3 filters on 1×28×28 images. */
export const BENCH_CNN: CnnSpec = {
  channels: 1,
  height: 28,
  width: 28,
  filters: 8,
  kernel: 3,
  blocks: 2,
  outputSize: 10,
};

/** The MLP of a choice: 784 inputs, one hidden layer, 10 classes. */
export const benchMlpSpec = (hidden: number): MlpSpec => ({
  inputSize: 784,
  hidden: [hidden],
  outputSize: 10,
  activation: 'relu',
});

export function benchModel(choice: ModelChoice): TrainModel {
  return choice.kind === 'mlp'
    ? mlpModel(benchMlpSpec(choice.hidden), choice.batch)
    : cnnModel(BENCH_CNN, choice.batch);
}

/**
 * The choice's train step built to gather its batch from a dataset kept on
 * the device (`residentRows`), as the product's WebGPU device loops train.
 */
export function residentTrainStep(
  choice: ModelChoice,
  optimizer: 'momentum' | 'adam' = 'momentum',
): TrainStep {
  const resident = { ...options, optimizer, residentRows: true };
  return choice.kind === 'mlp'
    ? buildMlpTrainStep(benchMlpSpec(choice.hidden), resident)
    : buildCnnTrainStep(BENCH_CNN, resident);
}
