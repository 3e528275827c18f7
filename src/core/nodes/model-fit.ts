/**
 * Which network a model becomes on a dataset, shared by the trainers and the
 * evaluators.
 *
 * Idea: a `model` edge carries an architecture without sizes (model.mlp,
 * model.cnn); a trainer sizes it from the rows it is given — an MLP takes
 * any row as a list of features (images flattened), a CNN takes only rows
 * that are images (`shape` `[channels, height, width]`) — and the trained
 * model keeps those sizes, so an evaluator can refuse rows of another shape.
 * Every refusal names what the model takes and what the dataset has.
 * Trade-off: the trainers and evaluators switch on the architecture here,
 * once, and know nothing else about it.
 */
import type { Dataset, ModelValue, TrainedModel } from '../catalog/values';
import { FlowbenchError } from '../errors';
import { validateCnnSpec } from '../onnx/cnn';
import type { TrainableBlock } from '../onnx/model-blocks';

/** How a row's shape reads in a message: `1×28×28`, or `4 features`. */
function shapeWords(shape: readonly number[] | undefined, size: number): string {
  return shape && shape.length > 1 ? `images ${shape.join('×')}` : `${size} features`;
}

/**
 * The network `model` becomes when trained on `data` (whose rows arrived on
 * input `port`); a model that does not fit the rows is a node-input error.
 */
export function blockFor(model: ModelValue, data: Dataset, port: string): TrainableBlock {
  const outputSize = data.classes;
  if (model.architecture === 'mlp')
    return {
      architecture: 'mlp',
      inputSize: data.featureSize,
      hidden: model.hidden,
      outputSize,
      activation: model.activation,
    };
  const shape = data.shape;
  if (shape?.length !== 3)
    throw new FlowbenchError('node-input', {
      problem: `model.cnn takes images [channels, height, width]; input '${port}' (${data.name}) has rows of ${shapeWords(shape, data.featureSize)}: load images with data.images, or train a model.mlp`,
    });
  const [channels, height, width] = shape as [number, number, number];
  const block: TrainableBlock = {
    architecture: 'cnn',
    channels,
    height,
    width,
    filters: model.filters,
    kernel: model.kernel,
    blocks: model.blocks,
    outputSize,
  };
  try {
    // The model's params may not fit these images (too many pools, too large a kernel).
    validateCnnSpec(block);
  } catch (error) {
    const reason = (error as Error).message.replace(/^CnnSpec\./, 'param ');
    throw new FlowbenchError('node-input', {
      problem: `model.cnn does not fit input '${port}' (${data.name}, images ${shape.join('×')}): ${reason}`,
    });
  }
  return block;
}

/** The shape of one input row of a trained model. */
export function modelInputShape(model: TrainedModel): readonly number[] {
  return model.inputShape ?? [model.inputSize];
}

/**
 * The network of a trained model, checked against rows it is to run on
 * (from input `port`): same row shape, same number of outputs (`outputs`:
 * the dataset's classes, or 1 for a regression target).
 */
export function trainedBlockFor(
  model: TrainedModel,
  data: Dataset,
  port: string,
  outputs: number = data.classes,
): TrainableBlock {
  const want = modelInputShape(model);
  const has = data.shape ?? [data.featureSize];
  const fits =
    model.architecture === 'cnn'
      ? want.length === has.length && want.every((d, i) => d === has[i])
      : data.featureSize === model.inputSize;
  if (!fits || outputs !== model.outputSize)
    throw new FlowbenchError('node-input', {
      problem: `the model takes ${shapeWords(want, model.inputSize)} and gives ${model.outputSize} outputs; input '${port}' (${data.name}) has ${shapeWords(has, data.featureSize)} and ${outputs === 1 && data.task === 'regression' ? 'one target' : `${outputs} classes`}`,
    });
  return blockFor(model, data, port);
}

/** The shape a batch of `rows` rows is fed in to `block`'s `x`. */
export function batchDims(block: TrainableBlock, rows: number): number[] {
  return block.architecture === 'cnn'
    ? [rows, block.channels, block.height, block.width]
    : [rows, block.inputSize];
}
