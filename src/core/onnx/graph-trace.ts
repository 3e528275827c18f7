/**
 * A GraphBuilder that also keeps a readable record of what it wrote.
 *
 * Idea: Flowbench only ever *writes* ONNX (there is no decoder), yet the
 * program runner must know, before a step runs, how much device memory it
 * will take. So the builders that emit models use this subclass, which
 * records every input, constant, node and output as plain data beside the
 * bytes; `memory.ts` infers shapes and a peak from that record. Trade-off: a
 * second copy of the graph's structure (small, no weights) lives as long as
 * the built model does.
 */
import {
  GraphBuilder,
  type AttrValue,
  type OpOptions,
  type TensorData,
  type ValueRef,
} from './graph.ts';
import type { Dim, ElemType } from './proto.ts';

/** A graph input or output as declared. `shape` undefined: any rank (fed as a scalar). */
export interface TracedValue {
  readonly name: string;
  readonly elemType: ElemType;
  readonly shape?: readonly Dim[] | undefined;
}

/** A constant stored in the model; small integer ones keep their values (axes, indices). */
export interface TracedConstant {
  readonly name: string;
  readonly elemType: ElemType;
  readonly dims: readonly number[];
  /** The values, kept for integer tensors of at most 16 elements. */
  readonly values?: readonly number[];
}

/** One operator application. */
export interface TracedNode {
  readonly opType: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  readonly attrs: Readonly<Record<string, AttrValue>>;
}

/** The structure of a built graph, in topological order. */
export interface GraphTrace {
  readonly name: string;
  readonly inputs: readonly TracedValue[];
  readonly constants: readonly TracedConstant[];
  readonly nodes: readonly TracedNode[];
  readonly outputs: readonly TracedValue[];
}

const KEPT_VALUES = 16;

/** A {@link GraphBuilder} that records its graph for shape and memory estimates. */
export class TracingGraphBuilder extends GraphBuilder {
  private readonly tracedInputs: TracedValue[] = [];
  private readonly tracedConstants: TracedConstant[] = [];
  private readonly tracedNodes: TracedNode[] = [];
  private readonly tracedOutputs: TracedValue[] = [];

  override input(name: string, elemType: ElemType, shape?: readonly Dim[]): ValueRef {
    const ref = super.input(name, elemType, shape);
    this.tracedInputs.push({ name, elemType, shape });
    return ref;
  }

  override initializer(name: string, data: TensorData, dims: readonly number[]): ValueRef {
    const ref = super.initializer(name, data, dims);
    const elemType: ElemType =
      data instanceof Float32Array ? 'float32' : data instanceof Int32Array ? 'int32' : 'int64';
    const keep = elemType !== 'float32' && data.length <= KEPT_VALUES;
    const values = keep
      ? data instanceof BigInt64Array
        ? Array.from(data, Number)
        : Array.from(data as Int32Array)
      : undefined;
    this.tracedConstants.push(
      values === undefined ? { name, elemType, dims } : { name, elemType, dims, values },
    );
    return ref;
  }

  override opN(
    opType: string,
    inputs: readonly (ValueRef | null)[],
    outputCount: number,
    attrs: Readonly<Record<string, AttrValue>> = {},
    options: OpOptions = {},
  ): ValueRef[] {
    const outs = super.opN(opType, inputs, outputCount, attrs, options);
    this.tracedNodes.push({
      opType,
      inputs: inputs.map((v) => v?.name ?? ''),
      outputs: outs.map((v) => v.name),
      attrs,
    });
    return outs;
  }

  override output(
    value: ValueRef,
    name: string,
    elemType: ElemType,
    shape?: readonly Dim[],
  ): ValueRef {
    const out = super.output(value, name, elemType, shape);
    this.tracedOutputs.push({ name, elemType, shape });
    return out;
  }

  /** The graph written so far, as plain data. */
  trace(): GraphTrace {
    return {
      name: this.name,
      inputs: [...this.tracedInputs],
      constants: [...this.tracedConstants],
      nodes: [...this.tracedNodes],
      outputs: [...this.tracedOutputs],
    };
  }
}
