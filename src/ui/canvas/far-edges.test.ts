import { getBezierPath, Position, type Edge, type InternalNode } from '@xyflow/react';
import { describe, expect, it } from 'vitest';
import { farEdges } from './far-edges';

/** A node at (x, y) with an input handle `in` on its left and an output `out` on its right. */
function node(id: string, x: number, y: number): InternalNode {
  const handle = (type: 'source' | 'target') => ({
    id: type === 'source' ? 'out' : 'in',
    nodeId: id,
    type,
    position: type === 'source' ? Position.Right : Position.Left,
    x: type === 'source' ? 184 : -6,
    y: 40,
    width: 12,
    height: 12,
  });
  return {
    id,
    type: 'flow',
    position: { x, y },
    data: {},
    measured: { width: 190, height: 90 },
    internals: {
      positionAbsolute: { x, y },
      z: 0,
      userNode: { id, position: { x, y }, data: {} },
      handleBounds: { source: [handle('source')], target: [handle('target')] },
    },
  };
}

const edge = (source: string, target: string, extra: Partial<Edge> = {}): Edge => ({
  id: `${source}->${target}`,
  source,
  target,
  sourceHandle: 'out',
  targetHandle: 'in',
  ...extra,
});

describe('farEdges', () => {
  const nodes = new Map([node('a', 0, 0), node('b', 400, 200)].map((n) => [n.id, n]));

  it('draws the curve React Flow draws, from the output handle’s right to the input’s left', () => {
    const [drawn] = farEdges([edge('a', 'b', { selected: true })], nodes);
    expect(drawn).toMatchObject({
      from: { x: 196, y: 46 },
      to: { x: 394, y: 246 },
      selected: true,
    });
    const [a, b] = drawn!.controls;
    const [path] = getBezierPath({
      sourceX: 196,
      sourceY: 46,
      sourcePosition: Position.Right,
      targetX: 394,
      targetY: 246,
      targetPosition: Position.Left,
    });
    expect(path).toBe(`M196,46 C${a.x},${a.y} ${b.x},${b.y} 394,246`);
  });

  it('leaves out hidden edges and those whose nodes or handles are not measured', () => {
    const unmeasured = node('e', 100, 100);
    unmeasured.internals.handleBounds = undefined;
    const drawn = farEdges(
      [edge('a', 'b'), edge('b', 'a', { hidden: true }), edge('a', 'e'), edge('a', 'gone')],
      new Map([...nodes, ['e', unmeasured]]),
    );
    expect(drawn.map((e) => [e.from.x, e.to.x])).toEqual([[196, 394]]);
  });
});
