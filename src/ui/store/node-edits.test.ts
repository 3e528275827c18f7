import { describe, expect, it } from 'vitest';
import type { NumberParam } from '../../core/catalog/params';
import { FLOW_FORMAT, FLOW_FORMAT_2, type FlowDocument } from '../../core/flow/document';
import { bindParam, inputFor, setBypass, unbindParam } from './node-edits';

const doc: FlowDocument = {
  format: FLOW_FORMAT,
  name: 'f',
  inputs: [{ name: 'steps', type: 'int', default: 10 }],
  outputs: [],
  nodes: [
    { id: 'a', kind: 'k', params: { lr: 0.3 }, position: { x: 0, y: 0 } },
    { id: 'b', kind: 'k', params: {}, position: { x: 0, y: 0 } },
  ],
  edges: [],
};
const lr: NumberParam = { type: 'number', default: 0.1, min: 0, max: 10, description: 'rate' };

describe('bypass', () => {
  it('marks a node bypassed in a /2 document, and back to /1 when none is', () => {
    const on = setBypass(['a'], true).apply(doc);
    expect(on.nodes[0]?.bypass).toBe(true);
    expect(on.format).toBe(FLOW_FORMAT_2);
    const off = setBypass(['a'], false).apply(on);
    expect(off.nodes[0]).toEqual(doc.nodes[0]);
    expect(off.format).toBe(FLOW_FORMAT);
  });

  it('changes nothing (no history entry) when the nodes already are as asked', () => {
    expect(setBypass(['b'], false).apply(doc)).toBe(doc);
  });
});

describe('binding a param to a flow input', () => {
  it('adds an input with the current value as default and the param range, and refers to it', () => {
    const found = inputFor(doc, 'lr', lr, 0.3);
    if (typeof found === 'string') throw new Error(found);
    expect(found).toEqual({
      isNew: true,
      input: { name: 'lr', type: 'number', default: 0.3, min: 0, max: 10, description: 'rate' },
    });
    const bound = bindParam('a', 'lr', found.input, found.isNew).apply(doc);
    expect(bound.inputs.map((i) => i.name)).toEqual(['steps', 'lr']);
    expect(bound.nodes[0]?.params.lr).toEqual({ $input: 'lr' });
    // Unbinding puts the input's default back as a literal; the input stays for others.
    const unbound = unbindParam(bound, 'a', 'lr', lr).apply(bound);
    expect(unbound.nodes[0]?.params.lr).toBe(0.3);
    expect(unbound.inputs).toHaveLength(2);
  });

  it('picks an input of the same name and type, and renames around one of another type', () => {
    const steps = { type: 'int' as const, default: 5, description: '' };
    expect(inputFor(doc, 'steps', steps, 7)).toMatchObject({ isNew: false, input: doc.inputs[0] });
    const found = inputFor(doc, 'steps', { ...lr }, 0.5);
    expect(found).toMatchObject({ isNew: true, input: { name: 'steps2', type: 'number' } });
  });

  it('refuses a file param by name', () => {
    const file = { type: 'file' as const, accept: '.onnx', default: '' as const, description: '' };
    expect(inputFor(doc, 'model', file, '')).toBe(
      "param 'model' is a file and cannot come from a flow input",
    );
  });
});
