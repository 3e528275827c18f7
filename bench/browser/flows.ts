/**
 * Flows for the startup row: the shipped example repeated until the flow
 * has the asked-for number of nodes, laid out in a grid, and checked with
 * the app's own validator so the import cannot be refused.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FlowDocument } from '../../src/core/flow/document';
import { describeIssues } from '../../src/core/flow/issues';
import { parseFlow, validateFlow } from '../../src/core/flow/validate';
import { builtinCatalog } from '../../src/core/nodes';
import { repoRoot } from './servers';

export function exampleFlow(): FlowDocument {
  const file = path.join(repoRoot, 'src', 'examples', 'spirals-mlp.flow.json');
  const parsed = parseFlow(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.ok)
    throw new Error(`the example flow does not parse:\n${describeIssues(parsed.issues)}`);
  return parsed.flow;
}

/** `copies` of the example side by side: `copies × 5` nodes, ids suffixed `_<copy>`. */
export function repeatedExample(nodes: number): FlowDocument {
  const example = exampleFlow();
  const per = example.nodes.length;
  if (nodes % per !== 0) throw new Error(`${nodes} nodes is not a multiple of ${per}`);
  const copies = nodes / per;
  const columns = Math.ceil(Math.sqrt(copies));
  const id = (node: string, copy: number) => `${node}_${copy}`;
  const ref = (portRef: string, copy: number) => {
    const dot = portRef.indexOf('.');
    return `${id(portRef.slice(0, dot), copy)}${portRef.slice(dot)}`;
  };
  const flow: FlowDocument = {
    ...example,
    name: `bench-${nodes}-nodes`,
    description: `${copies} copies of the ${example.name} example, for the startup bench.`,
    outputs: [],
    nodes: [],
    edges: [],
  };
  for (let copy = 0; copy < copies; copy++) {
    const dx = (copy % columns) * 1300;
    const dy = Math.floor(copy / columns) * 500;
    for (const node of example.nodes)
      flow.nodes.push({
        ...node,
        id: id(node.id, copy),
        position: { x: node.position.x + dx, y: node.position.y + dy },
      });
    for (const edge of example.edges)
      flow.edges.push({ from: ref(edge.from, copy), to: ref(edge.to, copy) });
  }
  const issues = validateFlow(flow, builtinCatalog);
  if (issues.length > 0)
    throw new Error(`the generated flow is invalid:\n${describeIssues(issues)}`);
  return flow;
}
