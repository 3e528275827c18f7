import type { InternalNode } from '@xyflow/react';
import { Position } from '@xyflow/react';
import { describe, expect, it } from 'vitest';
import { builtinCatalog } from '../../core/nodes';
import { portTypeColour } from '../colours';
import type { FlowNodeData, NodeRunState } from './adapter';
import { farCards, farLook, type FarPalette, type FarViewport } from './far-view';

const split = builtinCatalog.get('data.split')!;

function node(id: string, x: number, y: number, extra: Partial<InternalNode> = {}): InternalNode {
  const data: FlowNodeData = { kind: split, kindName: split.kind, label: id, bypass: false };
  return {
    id,
    type: 'flow',
    position: { x, y },
    data,
    measured: { width: 190, height: 80 },
    internals: {
      positionAbsolute: { x, y },
      z: 0,
      userNode: { id, position: { x, y }, data },
      handleBounds: {
        target: [
          {
            id: 'dataset',
            nodeId: id,
            type: 'target',
            position: Position.Left,
            x: -6,
            y: 30,
            width: 10,
            height: 10,
          },
        ],
        source: null,
      },
    },
    ...extra,
  };
}

/** Zoom 0.5 over a 1000 × 500 pane from the flow's origin: flow x 0–2000, y 0–1000 in view. */
const view: FarViewport = { x: 0, y: 0, zoom: 0.5, width: 1000, height: 500 };

describe('farCards', () => {
  it('makes a card per flow node in view, with its status, selection and handles', () => {
    const states = new Map<string, NodeRunState>([['a', { status: 'ok', error: '' }]]);
    const nodes = [
      node('a', 100, 100, { selected: true }),
      node('b', 400, 100),
      // Past the pane's right edge, a frame of a group, and a node not measured yet.
      node('far-right', 2100, 100),
      node('frame', 0, 0, { type: 'group' }),
      node('new', 600, 100, { measured: {} }),
    ];
    const cards = farCards(nodes, (id) => states.get(id), view);
    expect(cards.map((card) => card.id)).toEqual(['a', 'b']);
    const [a, b] = cards;
    expect(a).toMatchObject({ status: 'ok', selected: true, title: split.title, width: 190 });
    expect(b).toMatchObject({ status: 'idle', selected: false });
    // The handle's centre in flow coordinates, in its port type's colour.
    expect(a!.handles).toEqual([
      { x: 100 - 6 + 5, y: 100 + 30 + 5, radius: 5, colour: portTypeColour.dataset },
    ]);
  });

  it('keeps a card while its node and state are the same objects, and remakes it when the state changes', () => {
    const a = node('a', 100, 100);
    const running: NodeRunState = { status: 'running', error: '' };
    const first = farCards([a], () => running, view)[0];
    expect(farCards([a], () => running, view)[0]).toBe(first);
    const after = farCards([a], () => ({ status: 'error', error: 'boom' }), view)[0];
    expect(after).not.toBe(first);
    expect(after!.status).toBe('error');
  });
});

describe('farLook', () => {
  const palette: FarPalette = {
    font: 'sans-serif',
    text: '#000',
    accent: '#00f',
    ok: '#0a0',
    error: '#a00',
    running: '#00a',
    edges: { stroke: '#bbb', selected: '#555', width: 1 },
  };

  it('fills a card by its status as the page filled far cards, a cached node like an ok one', () => {
    expect(farLook('ok', palette)).toEqual({ fill: '#dcefdf', border: '#0a0', dashed: false });
    expect(farLook('cached', palette)).toEqual(farLook('ok', palette));
    expect(farLook('error', palette).border).toBe('#a00');
    expect(farLook('skipped', palette).dashed).toBe(true);
    expect(farLook('idle', palette).fill).toBe('#fff');
  });
});
