/**
 * Which network a model becomes on a dataset, shared by the trainers and the
 * evaluators.
 *
 * Idea: a `model` edge carries an architecture without sizes (model.mlp,
 * model.cnn, model.conv1d, model.attention); a trainer sizes it from the
 * rows it is given — an MLP takes any row as a list of features (images
 * flattened), a CNN takes only rows that are images (`shape` `[channels,
 * height, width]`), a conv1d and an attention model take a row as a
 * one-channel signal (or a `[channels, length]` row) — and the trained
 * model keeps those sizes, so an evaluator can
 * refuse rows of another shape. Every refusal names what the model takes
 * and what the dataset has. Trade-off: the trainers and evaluators switch on
 * the architecture here, once, and know nothing else about it.
 */
import type { Dataset, ModelValue, TrainedModel } from '../catalog/values';
import { FlowbenchError } from '../errors';
import { validateCnnSpec } from '../onnx/cnn';
import { validateConv1dSpec } from '../onnx/conv1d';
import { validatePooledAttentionSpec } from '../onnx/pooled-attention';
import { blockInputShape, type TrainableBlock } from '../onnx/model-blocks';

/** How a row's shape reads in a message: `images 1×28×28`, `signals 2×50`, or `4 features`. */
function shapeWords(shape: readonly number[] | undefined, size: number): string {
  if (shape?.length === 3) return `images ${shape.join('×')}`;
  if (shape?.length === 2) return `signals ${shape.join('×')}`;
  return `${size} features`;
}

/** The row shape `architecture` takes `data`'s rows in, or a message saying why it cannot. */
function rowShape(
  architecture: ModelValue['architecture'],
  data: Dataset,
  port: string,
): readonly number[] {
  const shape = data.shape;
  if (architecture === 'mlp') return [data.featureSize];
  if (architecture === 'cnn') {
    if (shape?.length === 3) return shape;
    throw new FlowbenchError('node-input', {
      problem: `model.cnn takes images [channels, height, width]; input '${port}' (${data.name}) has rows of ${shapeWords(shape, data.featureSize)}: load images with data.images, or train a model.mlp`,
    });
  }
  if (shape === undefined) return [1, data.featureSize];
  if (shape.length === 2) return shape;
  throw new FlowbenchError('node-input', {
    problem: `model.${architecture} takes signals [channels, length] or rows of features; input '${port}' (${data.name}) has rows of ${shapeWords(shape, data.featureSize)}: train a model.cnn on images`,
  });
}

/** Checks a sized block, turning a spec's RangeError into a message on the node. */
function checked(block: TrainableBlock, data: Dataset, port: string): TrainableBlock {
  try {
    if (block.architecture === 'cnn') validateCnnSpec(block);
    if (block.architecture === 'conv1d') validateConv1dSpec(block);
    if (block.architecture === 'pooled-attention') validatePooledAttentionSpec(block);
  } catch (error) {
    const reason = (error as Error).message.replace(
      /^(CnnSpec|Conv1dSpec|PooledAttentionSpec)\./,
      'param ',
    );
    const kind =
      block.architecture === 'pooled-attention' ? 'model.attention' : `model.${block.architecture}`;
    const rows = shapeWords(blockInputShape(block), data.featureSize);
    throw new FlowbenchError('node-input', {
      problem: `${kind} does not fit input '${port}' (${data.name}, ${rows}): ${reason}`,
    });
  }
  return block;
}

/**
 * The network `model` becomes when trained on `data` (whose rows arrived on
 * input `port`); a model that does not fit the rows is a node-input error.
 */
export function blockFor(model: ModelValue, data: Dataset, port: string): TrainableBlock {
  const outputSize = data.classes;
  const shape = rowShape(model.architecture, data, port);
  switch (model.architecture) {
    case 'mlp':
      return {
        architecture: 'mlp',
        inputSize: data.featureSize,
        hidden: model.hidden,
        outputSize,
        activation: model.activation,
      };
    case 'cnn': {
      const [channels, height, width] = shape as [number, number, number];
      const { filters, kernel, blocks } = model;
      const block: TrainableBlock = {
        architecture: 'cnn',
        ...{ channels, height, width, filters, kernel, blocks, outputSize },
      };
      return checked(block, data, port);
    }
    case 'conv1d': {
      const [channels, length] = shape as [number, number];
      const { filters, kernel } = model;
      const block: TrainableBlock = {
        architecture: 'conv1d',
        ...{ channels, length, filters, kernel, outputSize },
      };
      return checked(block, data, port);
    }
    case 'attention': {
      const [channels, positions] = shape as [number, number];
      const block: TrainableBlock = {
        architecture: 'pooled-attention',
        ...{ channels, positions, width: model.width, feedForward: model.feedForward, outputSize },
        ...(model.heads !== undefined && { heads: model.heads }),
      };
      return checked(block, data, port);
    }
  }
}

/** The shape of one input row of a trained model. */
export function modelInputShape(model: TrainedModel): readonly number[] {
  return model.inputShape ?? [model.inputSize];
}

/** What a trained model keeps of its row shape beside `inputSize` (none for an MLP). */
export function inputShapeOf(block: TrainableBlock): { inputShape?: readonly number[] } {
  return block.architecture === 'mlp' ? {} : { inputShape: blockInputShape(block) };
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
  const has = model.architecture === 'mlp' ? undefined : rowShape(model.architecture, data, port);
  const fits =
    has === undefined
      ? data.featureSize === model.inputSize
      : want.length === has.length && want.every((d, i) => d === has[i]);
  if (!fits || outputs !== model.outputSize)
    throw new FlowbenchError('node-input', {
      problem: `the model takes ${shapeWords(want, model.inputSize)} and gives ${model.outputSize} outputs; input '${port}' (${data.name}) has ${shapeWords(has ?? data.shape, data.featureSize)} and ${outputs === 1 && data.task === 'regression' ? 'one target' : `${outputs} classes`}`,
    });
  return blockFor(model, data, port);
}

/** The shape a batch of `rows` rows is fed in to `block`'s `x`. */
export function batchDims(block: TrainableBlock, rows: number): number[] {
  return [rows, ...blockInputShape(block)];
}
