import { expect, it } from 'vitest';
import type { FlowDocument } from './document';
import { protoKeyPath, snapshotIssues } from './untrusted';

it('finds a __proto__ key at any depth, as JSON.parse leaves it', () => {
  expect(protoKeyPath(JSON.parse('{"a": [{"b": 1}, {"__proto__": {"x": 1}}]}'))).toBe(
    'a[1].__proto__',
  );
  expect(protoKeyPath(JSON.parse('{"a": {"proto": 1}}'))).toBeNull();
  const deep = JSON.parse(`${'['.repeat(20_000)}{"__proto__": 1}${']'.repeat(20_000)}`) as unknown;
  expect(protoKeyPath(deep)).toMatch(/\.__proto__$/);
});

it('names duplicate ids and dangling edges of a snapshot', () => {
  const flow: FlowDocument = {
    format: 'flowbench.flow/1',
    name: 'f',
    inputs: [],
    outputs: [],
    nodes: [
      { id: 'a', kind: 'any', params: {}, position: { x: 0, y: 0 } },
      { id: 'a', kind: 'any', params: {}, position: { x: 0, y: 0 } },
    ],
    edges: [{ from: 'a.out', to: 'ghost.in' }],
  };
  expect(snapshotIssues(flow)).toEqual([
    { path: 'flow.nodes[1].id', message: "duplicate node id 'a'" },
    { path: 'flow.edges[0]', message: "edge a.out → ghost.in: no node 'ghost'" },
  ]);
});
