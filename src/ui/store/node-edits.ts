/**
 * Edits of one node's switches and bindings: bypass, and binding a param to
 * a flow input. Each is one entry of the history, like every other edit.
 */
import type { ParamSpec } from '../../core/catalog/params';
import {
  flowFormatFor,
  type FlowDocument,
  type FlowInput,
  type FlowNode,
  type ParamValue,
} from '../../core/flow/document';
import { freshId } from './clipboard';
import type { Edit } from './editor';

/** Set or clear `bypass` on nodes; the document's format follows (see `flowFormatFor`). */
export function setBypass(ids: readonly string[], on: boolean): Edit {
  const what = ids.length === 1 ? ids[0]! : `${ids.length} nodes`;
  return {
    label: `${on ? 'Bypass' : 'Stop bypassing'} ${what}`,
    apply: (doc) => {
      if (doc.nodes.every((n) => !ids.includes(n.id) || (n.bypass === true) === on)) return doc;
      const nodes = doc.nodes.map((n): FlowNode => {
        if (!ids.includes(n.id)) return n;
        const { bypass: _was, ...rest } = n;
        return on ? { ...rest, bypass: true } : rest;
      });
      return { ...doc, nodes, format: flowFormatFor({ nodes }) };
    },
  };
}

/** The flow input type a param can be bound to; null for a file param. */
export function inputTypeFor(spec: ParamSpec): FlowInput['type'] | null {
  switch (spec.type) {
    case 'number':
    case 'int':
    case 'boolean':
    case 'string':
      return spec.type;
    case 'enum':
      return 'string';
    case 'file':
      return null;
  }
}

/**
 * The flow input a param binds to: an input of its name and type if the
 * flow has one, else a new one (named after the param, made unique) whose
 * default is the param's current value and whose range is the param's.
 */
export function inputFor(
  doc: FlowDocument,
  param: string,
  spec: ParamSpec,
  value: ParamValue | undefined,
): { input: FlowInput; isNew: boolean } | string {
  const type = inputTypeFor(spec);
  if (type === null) return `param '${param}' is a file and cannot come from a flow input`;
  const existing = doc.inputs.find((i) => i.name === param && i.type === type);
  if (existing) return { input: existing, isNew: false };
  const current =
    value === undefined || value === null || typeof value === 'object' ? spec.default : value;
  const name = freshId(param, new Set(doc.inputs.map((i) => i.name)));
  const input: FlowInput = { name, type, default: current, description: spec.description };
  if ('min' in spec && spec.min !== undefined) input.min = spec.min;
  if ('max' in spec && spec.max !== undefined) input.max = spec.max;
  return { input, isNew: true };
}

/** Bind a node's param to `input`, adding the input to the flow when it is new. */
export function bindParam(node: string, param: string, input: FlowInput, isNew: boolean): Edit {
  return {
    label: `Bind ${node}.${param} to input ${input.name}`,
    apply: (doc) => ({
      ...doc,
      inputs: isNew ? [...doc.inputs, input] : doc.inputs,
      nodes: doc.nodes.map((n) =>
        n.id === node ? { ...n, params: { ...n.params, [param]: { $input: input.name } } } : n,
      ),
    }),
  };
}

/** Put a literal back in place of a binding: the input's default, else the param's. */
export function unbindParam(doc: FlowDocument, node: string, param: string, spec: ParamSpec): Edit {
  const bound = doc.nodes.find((n) => n.id === node)?.params[param];
  const input =
    typeof bound === 'object' && bound !== null && '$input' in bound
      ? doc.inputs.find((i) => i.name === bound.$input)
      : undefined;
  const value: ParamValue = input?.default ?? spec.default;
  return {
    label: `Unbind ${node}.${param}`,
    apply: (d) => ({
      ...d,
      nodes: d.nodes.map((n) =>
        n.id === node ? { ...n, params: { ...n.params, [param]: value } } : n,
      ),
    }),
  };
}
