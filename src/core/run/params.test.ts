import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dataSplit } from '../nodes/data-split';
import type { NodeKind } from '../catalog/kind';
import { FLOW_FORMAT, type FlowDocument, type FlowNode } from '../flow/document';
import { describeIssues } from '../flow/issues';
import { parseFlow } from '../flow/validate';
import { effectiveParams, resolveNodeParams, resolveRunParams, runValues } from './params';

function example(): FlowDocument {
  const json: unknown = JSON.parse(
    readFileSync(new URL('../../examples/spirals-mlp.flow.json', import.meta.url), 'utf8'),
  );
  const parsed = parseFlow(json);
  if (!parsed.ok) throw new Error(describeIssues(parsed.issues));
  return parsed.flow;
}

function flowWith(inputs: FlowDocument['inputs']): FlowDocument {
  return { format: FLOW_FORMAT, name: 'f', inputs, outputs: [], nodes: [], edges: [] };
}

describe('resolveRunParams', () => {
  it('refuses an unknown param, listing the inputs the flow declares', () => {
    const { issues } = resolveRunParams(example(), { x: 1 }, 0);
    expect(issues).toEqual([
      {
        path: 'params.x',
        message: "'x' is not an input of flow 'spirals-mlp' (it declares: lr, steps, seed)",
      },
    ]);
  });

  it('words an unknown param exactly as the issue asks', () => {
    const flow = flowWith([
      { name: 'a', type: 'number', default: 1 },
      { name: 'b', type: 'string', default: 'x' },
    ]);
    expect(resolveRunParams(flow, { x: 2 }, 0).issues.map((i) => i.message)).toEqual([
      "'x' is not an input of flow 'f' (it declares: a, b)",
    ]);
  });

  it('refuses a value of the wrong type, naming the param and what it expected', () => {
    const { values, issues } = resolveRunParams(example(), { lr: 'fast', steps: 2.5 }, 0);
    expect(issues).toEqual([
      { path: 'params.lr', message: '\'lr\' expects a number from 0 to 10, got "fast"' },
      { path: 'params.steps', message: "'steps' expects an integer from 1 to 100000, got 2.5" },
    ]);
    expect(values).not.toHaveProperty('lr');
  });

  it('refuses a value out of range, naming the param and the range', () => {
    const { issues } = resolveRunParams(example(), { lr: 11, steps: 0 }, 0);
    expect(issues).toEqual([
      { path: 'params.lr', message: "'lr' expects a number from 0 to 10, got 11" },
      { path: 'params.steps', message: "'steps' expects an integer from 1 to 100000, got 0" },
    ]);
  });

  it('refuses non-finite numbers and booleans for number inputs', () => {
    const { issues } = resolveRunParams(example(), { lr: Number.NaN, steps: true }, 0);
    expect(issues.map((i) => i.path)).toEqual(['params.lr', 'params.steps']);
  });

  it('fills an input named seed from the run seed', () => {
    const { values, issues } = resolveRunParams(example(), {}, 7);
    expect(issues).toEqual([]);
    expect(values.seed).toBe(7);
  });

  it('lets params set the seed input explicitly, over the run seed', () => {
    const { values, issues } = resolveRunParams(example(), { seed: 3 }, 7);
    expect(issues).toEqual([]);
    expect(values.seed).toBe(3);
  });

  it('checks a seed given as a param like any other input', () => {
    const { issues } = resolveRunParams(example(), { seed: -1 }, 7);
    expect(issues).toEqual([
      { path: 'params.seed', message: "'seed' expects an integer ≥ 0, got -1" },
    ]);
  });

  it('ignores the run seed in a flow without a seed input', () => {
    const flow = flowWith([{ name: 'lr', type: 'number', default: 0.5 }]);
    const { values, issues } = resolveRunParams(flow, {}, 42);
    expect(issues).toEqual([]);
    expect(values).toEqual({ lr: 0.5 });
  });

  it('refuses a run seed that is not a non-negative integer', () => {
    const flow = flowWith([{ name: 'lr', type: 'number', default: 0.5 }]);
    expect(resolveRunParams(flow, {}, -1).issues).toEqual([
      { path: 'seed', message: 'the seed must be a non-negative integer, got -1' },
    ]);
    expect(resolveRunParams(flow, {}, 1.5).issues.map((i) => i.path)).toEqual(['seed']);
  });

  it("takes the seed input's default when the run gives no seed", () => {
    const flow = flowWith([{ name: 'seed', type: 'int', default: 42, min: 0 }]);
    expect(resolveRunParams(flow, {}).values).toEqual({ seed: 42 });
    expect(resolveRunParams(flow, {}, 7).values).toEqual({ seed: 7 });
  });

  it('applies defaults for inputs not given', () => {
    const { values } = resolveRunParams(example(), { lr: 0.3 }, 0);
    expect(values).toEqual({ lr: 0.3, steps: 400, seed: 0 });
  });

  it('refuses an input without a default that the run does not set', () => {
    const flow = flowWith([
      { name: 'k', type: 'int' },
      { name: 'name', type: 'string', default: 'x' },
    ]);
    expect(resolveRunParams(flow, {}, 0).issues).toEqual([
      { path: 'params.k', message: "'k' has no default: the run must set it" },
    ]);
    expect(resolveRunParams(flow, { k: 4 }, 0)).toEqual({
      values: { k: 4, name: 'x' },
      issues: [],
    });
  });
});

describe('effectiveParams', () => {
  it('records every input, the seed input as the run seed', () => {
    const { values } = resolveRunParams(example(), {});
    expect(effectiveParams(values, undefined)).toEqual({
      params: { lr: 0.1, steps: 400 },
      seed: 0,
    });
  });

  it('keeps the run seed as given (or 0) in a flow without a seed input', () => {
    const flow = flowWith([{ name: 'lr', type: 'number', default: 0.5 }]);
    expect(effectiveParams(resolveRunParams(flow, {}).values, undefined)).toEqual({
      params: { lr: 0.5 },
      seed: 0,
    });
    expect(effectiveParams(resolveRunParams(flow, {}, 3).values, 3).seed).toBe(3);
  });

  it('reads a run recorded before defaults were kept as the values it ran with', () => {
    const run = { flowSnapshot: example(), params: { lr: 0.3 }, seed: 5 };
    expect(runValues(run)).toEqual({ params: { lr: 0.3, steps: 400 }, seed: 5 });
  });
});

describe('resolveNodeParams', () => {
  const split = dataSplit as unknown as NodeKind;
  const node = (params: FlowNode['params']): FlowNode => ({
    id: 'split',
    kind: 'data.split',
    params,
    position: { x: 0, y: 0 },
  });

  it('fills defaults and substitutes flow inputs', () => {
    const { params, issues } = resolveNodeParams(node({ seed: { $input: 'seed' } }), split, {
      seed: 9,
    });
    expect(issues).toEqual([]);
    expect(params).toEqual({ test_fraction: 0.2, stratify: true, seed: 9 });
  });

  it('refuses a flow input value that is out of the param range, naming the input', () => {
    const { issues } = resolveNodeParams(node({ test_fraction: { $input: 'frac' } }), split, {
      frac: 2,
    });
    expect(issues).toHaveLength(1);
    expect(issues[0]!.path).toBe('split.params.test_fraction');
    expect(issues[0]!.message).toBe(
      "node 'split' param 'test_fraction' (from input 'frac'): expected a number from 0.01 to 0.99, got 2",
    );
  });

  it('names the param by its document path when given the node index', () => {
    const { issues } = resolveNodeParams(node({ test_fraction: 0 }), split, {}, 1);
    expect(issues.map((i) => i.path)).toEqual(['nodes[1].params.test_fraction']);
  });
});
