/**
 * The common end of every built-in block's inference graph: the scores, their
 * softmax over the class axis, and the names a session feeds and fetches.
 */
import type { ValueRef } from './graph.ts';
import type { GraphTrace, TracingGraphBuilder } from './graph-trace.ts';
import type { MlpWeights, WeightSlot } from './mlp-spec.ts';

/** A built inference model and the names of its inputs and outputs. */
export interface InferenceModel {
  readonly model: Uint8Array;
  /** The graph's structure, for memory estimates. */
  readonly graph: GraphTrace;
  readonly inputs: {
    /** The block's input, float32 (its shape is the block's). */
    readonly x: string;
    /** Weight name → graph input name; empty when the weights are baked in. */
    readonly weights: Readonly<Record<string, string>>;
  };
  readonly outputs: {
    /** Scores, `shape`. */
    readonly logits: string;
    /** Softmax of the scores over the last axis, `shape`. */
    readonly probabilities: string;
  };
}

/**
 * Adds the softmax over the last axis of `shape`, declares both outputs and
 * names what a session needs; `weights` given means they were baked in.
 */
export function finishInference(
  g: TracingGraphBuilder,
  x: ValueRef,
  logits: ValueRef,
  shape: readonly (number | string)[],
  layout: readonly WeightSlot[],
  weights: MlpWeights | undefined,
): InferenceModel {
  const axis = shape.length - 1;
  const probabilities = g.op('Softmax', [logits], { axis }, { name: 'probabilities' });
  g.output(logits, logits.name, 'float32', shape);
  g.output(probabilities, probabilities.name, 'float32', shape);
  return {
    model: g.toModel(),
    graph: g.trace(),
    inputs: {
      x: x.name,
      weights: weights === undefined ? Object.fromEntries(layout.map((s) => [s.name, s.name])) : {},
    },
    outputs: { logits: logits.name, probabilities: probabilities.name },
  };
}
