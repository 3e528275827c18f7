import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { builtinCatalog } from '../nodes/index';
import { FLOW_FORMAT, FLOW_FORMAT_2, flowFormatFor, type FlowDocument } from './document';
import { describeIssues } from './issues';
import { findCycle, parseFlow, resolveOutput, validateFlow } from './validate';
import { FlowbenchError } from '../errors';

/** A shared fixture file, parsed as JSON (not yet as a flow). */
function readJson(relative: string): unknown {
  return JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as unknown;
}

function loadFlow(relative: string): FlowDocument {
  const parsed = parseFlow(readJson(relative));
  if (!parsed.ok) throw new Error(describeIssues(parsed.issues));
  return parsed.flow;
}

const EXAMPLE = '../../examples/spirals-mlp.flow.json';
const CYCLIC = '../../../e2e/flows/cyclic.flow.json';
const TYPE_MISMATCH = '../../../e2e/flows/type-mismatch.flow.json';

const catalog = builtinCatalog;

/** A fresh, mutable copy of the example flow. */
function example(): FlowDocument {
  return loadFlow(EXAMPLE);
}

function nodeIndex(flow: FlowDocument, id: string): number {
  const i = flow.nodes.findIndex((n) => n.id === id);
  if (i < 0) throw new Error(`no node ${id}`);
  return i;
}

describe('parseFlow', () => {
  it('reads the example flow and fills defaults', () => {
    const flow = example();
    expect(flow.format).toBe(FLOW_FORMAT);
    expect(flow.nodes.map((n) => n.id)).toEqual(['data', 'split', 'model', 'train', 'eval']);
  });

  it('refuses an unknown format, naming the field and the format it expects', () => {
    const doc = readJson(EXAMPLE) as Record<string, unknown>;
    doc.format = 'flowbench.flow/9';
    const parsed = parseFlow(doc);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.issues).toEqual([
      { path: 'format', message: `expected "${FLOW_FORMAT}" or "${FLOW_FORMAT_2}"` },
    ]);
  });

  it('reads a /1 document as it is, and a bypassed node only in a /2 document', () => {
    const doc = readJson(EXAMPLE) as { format: string; nodes: Record<string, unknown>[] };
    const plain = parseFlow(doc);
    expect(plain.ok && plain.flow).toMatchObject({ format: FLOW_FORMAT, nodes: doc.nodes });
    doc.nodes[1]!.bypass = true;
    const old = parseFlow(doc);
    expect(old.ok ? [] : old.issues.map((i) => i.path)).toEqual(['nodes[1].bypass']);
    doc.format = FLOW_FORMAT_2;
    const parsed = parseFlow(doc);
    expect(parsed.ok && parsed.flow.nodes[1]?.bypass).toBe(true);
    expect(parsed.ok && flowFormatFor(parsed.flow)).toBe(FLOW_FORMAT_2);
  });

  it('names the field of a malformed node id and edge', () => {
    const doc = readJson(EXAMPLE) as { nodes: { id: string }[]; edges: { from: string }[] };
    doc.nodes[2]!.id = 'my.model';
    doc.edges[1]!.from = 'split';
    const parsed = parseFlow(doc);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.issues.map((i) => i.path).sort()).toEqual(['edges[1].from', 'nodes[2].id']);
    expect(parsed.issues.find((i) => i.path === 'edges[1].from')?.message).toContain('nodeId.port');
  });

  it('refuses a document without nodes', () => {
    const parsed = parseFlow({ format: FLOW_FORMAT, name: 'x' });
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.issues.map((i) => i.path)).toEqual(['nodes']);
  });
});

describe('validateFlow', () => {
  it('finds nothing wrong with the example flow', () => {
    expect(validateFlow(example(), catalog)).toEqual([]);
  });

  it('reports an unknown node kind on the node', () => {
    const flow = example();
    flow.nodes[nodeIndex(flow, 'model')]!.kind = 'model.transformer';
    // Only the node is reported: train.model is still wired, so it is not "not connected".
    expect(validateFlow(flow, catalog)).toEqual([
      { path: 'nodes[2].kind', message: "node 'model' has unknown kind 'model.transformer'" },
    ]);
  });

  it('reports an unknown input port with the ports the node has', () => {
    const flow = example();
    flow.edges[0] = { from: 'data.dataset', to: 'split.data' };
    const issues = validateFlow(flow, catalog);
    expect(issues).toContainEqual({
      path: 'edges[0].to',
      message: "node 'split' (data.split) has no input port 'data' (it has: dataset)",
    });
  });

  it('reports an unknown output port with the ports the node has', () => {
    const flow = example();
    flow.edges[1] = { from: 'split.training', to: 'train.dataset' };
    const issues = validateFlow(flow, catalog);
    expect(issues).toContainEqual({
      path: 'edges[1].from',
      message: "node 'split' (data.split) has no output port 'training' (it has: train, test)",
    });
  });

  it('reports an edge to a node that does not exist', () => {
    const flow = example();
    flow.edges.push({ from: 'ghost.out', to: 'eval.model' });
    expect(validateFlow(flow, catalog)).toContainEqual({
      path: 'edges[5]',
      message: "edge ghost.out → eval.model: no node 'ghost'",
    });
  });

  it('reports the type mismatch of the fixture, naming both types', () => {
    const issues = validateFlow(loadFlow(TYPE_MISMATCH), catalog);
    expect(issues).toHaveLength(1);
    expect(issues[0]!.path).toBe('edges[2]');
    expect(issues[0]!.message).toContain('data.dataset → train.model');
    expect(issues[0]!.message).toContain('dataset cannot flow into model');
  });

  it('reports an input wired twice, pointing at both edges', () => {
    const flow = example();
    flow.edges.push({ from: 'split.test', to: 'train.dataset' });
    expect(validateFlow(flow, catalog)).toEqual([
      {
        path: 'edges[5].to',
        message: 'input train.dataset is wired twice (also by edges[1])',
      },
    ]);
  });

  it('reports a required input that is not connected, with its type', () => {
    const flow = example();
    flow.edges = flow.edges.filter((e) => e.to !== 'train.model');
    expect(validateFlow(flow, catalog)).toEqual([
      { path: 'nodes[3]', message: "node 'train' input 'model' (model) is not connected" },
    ]);
  });

  it('reports an out-of-range param, naming node, param and the expected range', () => {
    const flow = example();
    flow.nodes[nodeIndex(flow, 'split')]!.params.test_fraction = 1.5;
    flow.nodes[nodeIndex(flow, 'data')]!.params.n = 5;
    expect(validateFlow(flow, catalog)).toEqual([
      {
        path: 'nodes[0].params.n',
        message: "node 'data' param 'n': expected an integer from 10 to 1000000, got 5",
      },
      {
        path: 'nodes[1].params.test_fraction',
        message: "node 'split' param 'test_fraction': expected a number from 0.01 to 0.99, got 1.5",
      },
    ]);
  });

  it('reports a param of the wrong type and an unknown enum option', () => {
    const flow = example();
    flow.nodes[nodeIndex(flow, 'model')]!.params.hidden = 'wide';
    flow.nodes[nodeIndex(flow, 'model')]!.params.activation = 'swish';
    const issues = validateFlow(flow, catalog);
    expect(issues.map((i) => i.path)).toEqual([
      'nodes[2].params.hidden',
      'nodes[2].params.activation',
    ]);
    expect(issues[1]!.message).toContain('one of "relu", "tanh", "gelu", got "swish"');
  });

  it('reports a param the kind does not have, listing the ones it has', () => {
    const flow = example();
    flow.nodes[nodeIndex(flow, 'split')]!.params.ratio = 0.5;
    expect(validateFlow(flow, catalog)).toEqual([
      {
        path: 'nodes[1].params.ratio',
        message:
          "node 'split' (data.split) has no param 'ratio' (it has: test_fraction, stratify, seed, cache)",
      },
    ]);
  });

  it('reports an $input reference to an input the flow does not declare', () => {
    const flow = example();
    flow.nodes[nodeIndex(flow, 'train')]!.params.lr = { $input: 'learning_rate' };
    expect(validateFlow(flow, catalog)).toEqual([
      {
        path: 'nodes[3].params.lr',
        message:
          "node 'train' param 'lr' refers to flow input 'learning_rate', which the flow does not declare",
      },
    ]);
  });

  it('reports an $input reference whose input type cannot fill the param', () => {
    const flow = example();
    flow.nodes[nodeIndex(flow, 'data')]!.params.n = { $input: 'lr' };
    const issues = validateFlow(flow, catalog);
    expect(issues).toHaveLength(1);
    expect(issues[0]!.path).toBe('nodes[0].params.n');
    expect(issues[0]!.message).toContain("flow input 'lr' is of type number");
  });

  it('reports the cycle of the fixture with its path', () => {
    const flow = loadFlow(CYCLIC);
    expect(findCycle(flow)).toEqual(['split', 'split2', 'split']);
    expect(validateFlow(flow, catalog)).toEqual([
      { path: 'edges', message: 'the flow has a cycle: split → split2 → split' },
    ]);
  });

  it('finds no cycle in an acyclic flow with a diamond', () => {
    // split → train → eval and split → eval: a diamond, not a cycle.
    expect(findCycle(example())).toBeNull();
  });

  it('checks a chain of 20,000 nodes, and names the cycle that one more edge closes', () => {
    const nodes: FlowDocument['nodes'] = [];
    const edges: FlowDocument['edges'] = [];
    for (let i = 0; i < 20_000; i++) {
      nodes.push({ id: `s${i}`, kind: 'data.split', params: {}, position: { x: 0, y: 0 } });
      if (i > 0) edges.push({ from: `s${i - 1}.train`, to: `s${i}.dataset` });
    }
    const chain: FlowDocument = { ...example(), outputs: [], nodes, edges };
    expect(validateFlow(chain, catalog)).toEqual([
      { path: 'nodes[0]', message: "node 's0' input 'dataset' (dataset) is not connected" },
    ]);
    const looped = { ...chain, edges: [...edges, { from: 's19999.test', to: 's0.dataset' }] };
    expect(validateFlow(looped, catalog)).toEqual([
      {
        path: 'edges',
        message: `the flow has a cycle: ${[...nodes.map((n) => n.id), 's0'].join(' → ')}`,
      },
    ]);
  });

  it('reports duplicate node ids on the second node', () => {
    const flow = example();
    flow.nodes.push({ ...flow.nodes[1]!, position: { x: 1, y: 1 } });
    expect(validateFlow(flow, catalog)).toEqual([
      { path: 'nodes[5].id', message: "duplicate node id 'split'" },
    ]);
  });

  it('reports duplicate flow input names', () => {
    const flow = example();
    flow.inputs.push({ name: 'lr', type: 'number', default: 1 });
    expect(validateFlow(flow, catalog)).toEqual([
      { path: 'inputs[3].name', message: "duplicate input 'lr'" },
    ]);
  });

  it('reports flow outputs that are unknown or ambiguous', () => {
    const flow = example();
    flow.outputs = ['accuracy', 'f1', 'model', 'train.model', 'ghost.model'];
    expect(validateFlow(flow, catalog)).toEqual([
      { path: 'outputs[1]', message: "flow output 'f1' names no output port of this flow" },
      {
        path: 'outputs[2]',
        message:
          "flow output 'model' is ambiguous (nodes 'model', 'train' all have it): write it as node.port",
      },
      {
        path: 'outputs[4]',
        message: "flow output 'ghost.model' names no output port of this flow",
      },
    ]);
  });

  it('resolves a flow output by port name or node.port', () => {
    const flow = example();
    expect(resolveOutput(flow, catalog, 'accuracy')).toEqual({ node: 'eval', port: 'accuracy' });
    expect(resolveOutput(flow, catalog, 'train.model')).toEqual({ node: 'train', port: 'model' });
  });

  it('renders findings for an error message, one line each', () => {
    const error = new FlowbenchError('invalid-flow', {
      issues: validateFlow(loadFlow(CYCLIC), catalog),
    });
    expect(error.message).toBe(
      'The flow is not valid:\nedges: the flow has a cycle: split → split2 → split',
    );
  });
});
