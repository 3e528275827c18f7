import { describe, expect, it } from 'vitest';
import { alignBoxes, autoLayout, distributeBoxes, type LayoutBox } from './layout';

const box = (id: string, x: number, y: number, width = 100, height = 50): LayoutBox => ({
  id,
  x,
  y,
  width,
  height,
});

/** Boxes after applying moves. */
function moved(boxes: readonly LayoutBox[], moves: Map<string, { x: number; y: number }>) {
  return boxes.map((b) => ({ ...b, ...moves.get(b.id) }));
}

describe('align', () => {
  const boxes = [box('a', 10, 0, 100), box('b', 50, 100, 200), box('c', 0, 200, 60, 20)];

  it('left, right and centre put one edge or the centre line in common', () => {
    expect(new Set(moved(boxes, alignBoxes(boxes, 'left')).map((b) => b.x))).toEqual(new Set([0]));
    expect(new Set(moved(boxes, alignBoxes(boxes, 'right')).map((b) => b.x + b.width))).toEqual(
      new Set([250]),
    );
    expect(
      new Set(moved(boxes, alignBoxes(boxes, 'centre')).map((b) => b.x + b.width / 2)),
    ).toEqual(new Set([125]));
  });

  it('top, middle and bottom move only y', () => {
    for (const how of ['top', 'middle', 'bottom'] as const) {
      const after = moved(boxes, alignBoxes(boxes, how));
      expect(after.map((b) => b.x)).toEqual(boxes.map((b) => b.x));
    }
    expect(new Set(moved(boxes, alignBoxes(boxes, 'bottom')).map((b) => b.y + b.height))).toEqual(
      new Set([220]),
    );
    expect(
      new Set(moved(boxes, alignBoxes(boxes, 'middle')).map((b) => b.y + b.height / 2)),
    ).toEqual(new Set([110]));
  });

  it('moves nothing for one node, and lists only nodes that move', () => {
    expect(alignBoxes([box('a', 3, 4)], 'left').size).toBe(0);
    expect([...alignBoxes(boxes, 'left').keys()]).toEqual(['a', 'b']);
  });
});

describe('distribute', () => {
  it('makes the gaps between neighbours equal, keeping the outer nodes', () => {
    const boxes = [box('a', 0, 0, 100), box('c', 500, 0, 100), box('b', 120, 0, 50)];
    const after = moved(boxes, distributeBoxes(boxes, 'horizontal')).sort((p, q) => p.x - q.x);
    expect(after.map((b) => b.id)).toEqual(['a', 'b', 'c']);
    expect(after[0]!.x).toBe(0);
    expect(after[2]!.x).toBe(500);
    const gaps = [after[1]!.x - 100, 500 - (after[1]!.x + 50)];
    expect(gaps[0]).toBeCloseTo(gaps[1]!);
    expect(after.map((b) => b.y)).toEqual([0, 0, 0]);
  });

  it('vertically, and not at all for two nodes', () => {
    const boxes = [box('a', 0, 0), box('b', 0, 10), box('c', 0, 300)];
    const after = moved(boxes, distributeBoxes(boxes, 'vertical'));
    expect(after.find((b) => b.id === 'b')!.y).toBe(150);
    expect(distributeBoxes(boxes.slice(0, 2), 'vertical').size).toBe(0);
  });
});

describe('auto-layout', () => {
  // data → split → train → eval, with model → train and split → eval, drawn in a jumble.
  const boxes = [
    box('eval', 0, 0),
    box('train', 40, 300),
    box('model', 500, 20),
    box('split', 300, 200),
    box('data', 200, 100),
  ];
  const links = [
    { from: 'data', to: 'split' },
    { from: 'split', to: 'train' },
    { from: 'model', to: 'train' },
    { from: 'train', to: 'eval' },
    { from: 'split', to: 'eval' },
  ];

  it('puts every link left to right, one layer per longest path', () => {
    const after = new Map(moved(boxes, autoLayout(boxes, links)).map((b) => [b.id, b]));
    for (const l of links) expect(after.get(l.from)!.x + 100).toBeLessThan(after.get(l.to)!.x);
    expect(after.get('data')!.x).toBe(after.get('model')!.x);
    // eval is two steps from split through train, so it sits after train, not beside it.
    expect(after.get('eval')!.x).toBeGreaterThan(after.get('train')!.x);
  });

  it('keeps nodes of a layer apart and starts at the old top-left corner', () => {
    const after = moved(boxes, autoLayout(boxes, links, { nodeGap: 40 }));
    expect(Math.min(...after.map((b) => b.x))).toBe(0);
    const first = after.filter((b) => b.x === 0).sort((p, q) => p.y - q.y);
    expect(first).toHaveLength(2);
    expect(first[1]!.y - (first[0]!.y + 50)).toBe(40);
  });

  it('is deterministic and idempotent', () => {
    const once = autoLayout(boxes, links);
    expect(autoLayout(boxes, links)).toEqual(once);
    expect(autoLayout(moved(boxes, once), links).size).toBe(0);
  });

  it('orders a layer by its upstream nodes to avoid crossings', () => {
    // a (top) feeds c and b (bottom) feeds d, but d is drawn above c: the layout uncrosses them.
    const crossed = [box('a', 0, 0), box('b', 0, 100), box('c', 300, 100), box('d', 300, 0)];
    const after = new Map(
      moved(
        crossed,
        autoLayout(crossed, [
          { from: 'a', to: 'c' },
          { from: 'b', to: 'd' },
        ]),
      ).map((b) => [b.id, b]),
    );
    expect(after.get('c')!.y).toBeLessThan(after.get('d')!.y);
  });

  it('lays out a selection alone and survives a cycle', () => {
    const some = boxes.filter((b) => b.id === 'data' || b.id === 'split');
    const after = moved(some, autoLayout(some, links));
    expect(after.map((b) => b.id).sort()).toEqual(['data', 'split']);
    const loop = [box('p', 0, 0), box('q', 0, 100)];
    const placed = moved(
      loop,
      autoLayout(loop, [
        { from: 'p', to: 'q' },
        { from: 'q', to: 'p' },
      ]),
    );
    expect(new Set(placed.map((b) => b.x)).size).toBe(2);
  });
});
