/**
 * The loss graph and the downloadable `.onnx` of a block that classifies
 * (or regresses) whole rows — the CNN, the conv1d block — written once for
 * any forward pass.
 *
 * Idea: a block hands over its input shape, its weight layout and a forward
 * function from `x` to logits; the loss graph adds the loss (for a
 * validation loss, no update), the export bakes the trained weights in and
 * names the outputs as the MLP's export does (`features` in; `logits` and
 * `probabilities`, or `prediction`, out; what the classes are in its
 * metadata), and applies the training rows' standardisation inside the
 * graph, so it answers for raw rows. Trade-off: the export takes rows in
 * the block's shape (an image `[channels, height, width]`, a table's row as
 * a signal `[1, F]`), not always the flat `[F]` a table gives.
 */
import type { ValueRef } from './graph.ts';
import { TracingGraphBuilder, type GraphTrace } from './graph-trace.ts';
import { weightRefs } from './block-weights.ts';
import { BATCH, meanLoss, type MlpLossKind } from './mlp-layers.ts';
import type { MlpWeights, WeightSlot } from './mlp-spec.ts';
import {
  EXPORT_INPUT,
  exportMetadata,
  standardised,
  type ExportedModelAbout,
} from './mlp-export.ts';

/** What a block gives to have its loss graph or export built. */
export interface RowBlock {
  /** The graph's name stem (`cnn`, `conv1d`). */
  readonly name: string;
  /** One row's shape (the batch axis left out). */
  readonly rowShape: readonly number[];
  readonly outputSize: number;
  readonly layout: readonly WeightSlot[];
  /** `x` → logits `[batch, outputSize]`, named `logitsName` when given. */
  forward(
    g: TracingGraphBuilder,
    x: ValueRef,
    w: ReadonlyMap<string, ValueRef>,
    logitsName?: string,
  ): ValueRef;
}

/** A loss graph: `x`, `y` and the weights in, the mean `loss` out. */
export interface LossGraph {
  readonly model: Uint8Array;
  readonly graph: GraphTrace;
  readonly inputs: {
    readonly x: string;
    readonly y: string;
    readonly weights: Readonly<Record<string, string>>;
  };
  readonly outputs: { readonly loss: string };
}

/** The mean loss of the weights on a batch, without an update (a validation loss). */
export function buildLossGraph(block: RowBlock, loss: MlpLossKind): LossGraph {
  const g = new TracingGraphBuilder(`${block.name}_loss_${loss}`);
  const x = g.input('x', 'float32', [BATCH, ...block.rowShape]);
  const y = g.input('y', 'float32', [BATCH, block.outputSize]);
  const w = weightRefs(g, block.layout);
  const logits = block.forward(g, x, w);
  const value = meanLoss(g, loss, logits, y);
  g.output(value, value.name, 'float32', []);
  return {
    model: g.toModel(),
    graph: g.trace(),
    inputs: {
      x: x.name,
      y: y.name,
      weights: Object.fromEntries(block.layout.map((s) => [s.name, s.name])),
    },
    outputs: { loss: value.name },
  };
}

/**
 * The standalone `.onnx` a person downloads: rows `features [batch,
 * ...rowShape]` in, `logits` and `probabilities` (a regressor:
 * `prediction`) out, the trained weights baked in.
 */
export function buildExportGraph(
  block: RowBlock,
  weights: MlpWeights,
  about: ExportedModelAbout,
): Uint8Array {
  const g = new TracingGraphBuilder('flowbench_model');
  const features = g.input(EXPORT_INPUT, 'float32', [BATCH, ...block.rowShape]);
  const x = standardised(g, features, block.rowShape, about.standardisation);
  const w = weightRefs(g, block.layout, weights);
  const shape = [BATCH, block.outputSize];
  if (about.task === 'regression') {
    g.output(block.forward(g, x, w, 'prediction'), 'prediction', 'float32', shape);
  } else {
    const logits = block.forward(g, x, w, 'logits');
    const probabilities = g.op('Softmax', [logits], { axis: 1 }, { name: 'probabilities' });
    g.output(logits, 'logits', 'float32', shape);
    g.output(probabilities, 'probabilities', 'float32', shape);
  }
  const inputSize = block.rowShape.reduce((a, b) => a * b, 1);
  return g.toModel('Flowbench', {
    metadataProps: exportMetadata(inputSize, block.outputSize, about),
  });
}
