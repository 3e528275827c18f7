/**
 * Weights of the built-in blocks (conv, attention) as graph values.
 *
 * Idea: every block keeps its weights as a named layout (`MlpWeights`, the
 * same plain data the MLP uses), declared as graph inputs while it trains and
 * baked in as initializers for the artifact a person downloads. Trade-off: a
 * block looks its weights up by name, so a typo is caught when the graph is
 * built, not by the type checker.
 */
import type { GraphBuilder, ValueRef } from './graph.ts';
import { elementCount, type MlpWeights, type WeightSlot } from './mlp-spec.ts';

/**
 * Weight name → graph value, in layout order: graph inputs, or initializers
 * when `weights` are given (the trained artifact).
 */
export function weightRefs(
  g: GraphBuilder,
  layout: readonly WeightSlot[],
  weights?: MlpWeights,
): Map<string, ValueRef> {
  return new Map(
    layout.map((slot) => {
      if (weights === undefined) return [slot.name, g.input(slot.name, 'float32', slot.dims)];
      const data = weights.values[slot.name];
      if (data === undefined || data.length !== elementCount(slot.dims))
        throw new RangeError(
          `weight ${slot.name}: expected ${elementCount(slot.dims)} values, got ${data?.length ?? 'none'}`,
        );
      return [slot.name, g.initializer(slot.name, data, slot.dims)];
    }),
  );
}

/** The value of weight `name`. */
export function need(refs: ReadonlyMap<string, ValueRef>, name: string): ValueRef {
  const ref = refs.get(name);
  if (ref === undefined) throw new Error(`unreachable: no weight ${name}`);
  return ref;
}

/** Uniform in ±`limit`, drawn from `random` (uniform in [0, 1)). */
export function uniformWeights(count: number, limit: number, random: () => number): Float32Array {
  const data = new Float32Array(count);
  for (let i = 0; i < count; i++) data[i] = (2 * random() - 1) * limit;
  return data;
}

/**
 * Fresh weights for `layout`: each slot named in `limits` uniform in ±its
 * limit, the rest (biases) zero; drawn in layout order, so one seed gives
 * one set of weights.
 */
export function initWeights(
  layout: readonly WeightSlot[],
  limits: Readonly<Record<string, number>>,
  random: () => number,
): MlpWeights {
  const values: Record<string, Float32Array> = {};
  for (const slot of layout) {
    const limit = limits[slot.name];
    const count = elementCount(slot.dims);
    values[slot.name] =
      limit === undefined ? new Float32Array(count) : uniformWeights(count, limit, random);
  }
  return { layout, values };
}
