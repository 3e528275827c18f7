/**
 * The MLP classifier's shape and its weights, as plain data.
 *
 * Idea: weights are a flat record of named Float32Arrays plus an ordered
 * layout (`W0, b0, W1, b1, …`), so a worker can feed them to any session,
 * store them, or bake them into a model without knowing the network.
 * Initialisation draws from an injected uniform [0, 1) function rather than
 * `Math.random`, so a run's seed fixes its starting weights exactly.
 * Trade-off: the layout is a naming convention (layer index in the name)
 * rather than a nested structure; it is simple to feed and to serialise.
 */

/** The hidden-layer activations the builders emit. */
export type MlpActivation = 'relu' | 'tanh' | 'gelu';

/** Every {@link MlpActivation}, in the order a picker lists them. */
export const mlpActivations: readonly MlpActivation[] = ['relu', 'tanh', 'gelu'];

/** A fully connected classifier: `inputSize → hidden[0] → … → outputSize` (logits). */
export interface MlpSpec {
  readonly inputSize: number;
  /** Widths of the hidden layers, any depth; empty gives a linear (softmax-regression) model. */
  readonly hidden: readonly number[];
  readonly outputSize: number;
  /**
   * Activation after every hidden layer (never after the output layer).
   * `gelu` is the tanh approximation, `0.5·z·(1 + tanh(√(2/π)·(z + 0.044715·z³)))`.
   */
  readonly activation: MlpActivation;
}

/** One weight tensor: `W<l>` is `[fanIn, fanOut]`, `b<l>` is `[fanOut]`. */
export interface WeightSlot {
  readonly name: string;
  readonly dims: readonly number[];
}

/** A network's weights: values by name, and their stable order and shapes. */
export interface MlpWeights {
  readonly layout: readonly WeightSlot[];
  readonly values: Record<string, Float32Array>;
}

/** Throws a RangeError naming the field when a spec is not a valid network. */
export function validateMlpSpec(spec: MlpSpec): void {
  const check = (field: string, v: number): void => {
    if (!Number.isSafeInteger(v) || v < 1)
      throw new RangeError(`MlpSpec.${field} must be a positive integer, got ${v}`);
  };
  check('inputSize', spec.inputSize);
  spec.hidden.forEach((h, i) => check(`hidden[${i}]`, h));
  check('outputSize', spec.outputSize);
  // A guard for specs that come from untyped data (an imported flow, a message).
  if (!mlpActivations.includes(spec.activation)) {
    throw new RangeError(
      `MlpSpec.activation must be "relu", "tanh" or "gelu", got ${spec.activation}`,
    );
  }
}

/** Layer widths from input to output: `[inputSize, ...hidden, outputSize]`. */
export function layerWidths(spec: MlpSpec): number[] {
  return [spec.inputSize, ...spec.hidden, spec.outputSize];
}

/** The ordered weight slots `W0, b0, W1, b1, …` of a spec. */
export function mlpWeightLayout(spec: MlpSpec): WeightSlot[] {
  validateMlpSpec(spec);
  const widths = layerWidths(spec);
  return widths.slice(1).flatMap((fanOut, l) => {
    const fanIn = widths[l] as number;
    return [
      { name: `W${l}`, dims: [fanIn, fanOut] },
      { name: `b${l}`, dims: [fanOut] },
    ];
  });
}

/** Number of elements of a tensor with these dims. */
export function elementCount(dims: readonly number[]): number {
  return dims.reduce((a, b) => a * b, 1);
}

/**
 * Fresh weights: hidden layers uniform in ±√(6/fanIn) for relu and gelu (He)
 * or ±√(6/(fanIn+fanOut)) for tanh (Glorot); the output layer always Glorot;
 * biases zero. Draws `random()` once per weight, layer by layer, row-major,
 * so the same function state gives the same weights.
 */
export function initMlpWeights(spec: MlpSpec, random: () => number): MlpWeights {
  const layout = mlpWeightLayout(spec);
  const lastLayer = spec.hidden.length;
  const values: Record<string, Float32Array> = {};
  for (const slot of layout) {
    const data = new Float32Array(elementCount(slot.dims));
    const [fanIn, fanOut] = slot.dims;
    if (fanOut !== undefined && fanIn !== undefined) {
      const layer = Number(slot.name.slice(1));
      const he = spec.activation !== 'tanh' && layer !== lastLayer;
      const limit = Math.sqrt(6 / (he ? fanIn : fanIn + fanOut));
      for (let i = 0; i < data.length; i++) data[i] = (2 * random() - 1) * limit;
    }
    values[slot.name] = data;
  }
  return { layout, values };
}
