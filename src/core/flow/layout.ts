/**
 * Layout of a flow's nodes: align, distribute and auto-layout, as pure
 * functions over boxes (a node's position and its drawn size). They return
 * the new top-left corner of each node that moves and nothing else, so the
 * editor can apply the result as one edit, undone in one step.
 *
 * Auto-layout is layered, left to right by data flow: a node's layer is the
 * longest path to it from a source, and within a layer nodes are ordered by
 * the mean position of their upstream neighbours (one barycentre sweep per
 * layer, repeated a few times). That is far from optimal crossing reduction,
 * but flows are small, mostly chains, and the result is deterministic: the
 * same flow always lays out the same way.
 */

/** A node as layout sees it: where it is and how big it is drawn. */
export interface LayoutBox {
  id: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A node's new top-left corner, by id. */
export type Positions = Map<string, { x: number; y: number }>;

export const alignments = ['left', 'centre', 'right', 'top', 'middle', 'bottom'] as const;
/** Which edge or centre line the nodes share after aligning. */
export type Alignment = (typeof alignments)[number];

export type Axis = 'horizontal' | 'vertical';

/**
 * Align boxes on one edge or centre line of their joint bounding box (left:
 * every left edge on the leftmost one; centre: every centre on the box's
 * centre). Fewer than two boxes: nothing moves.
 */
export function alignBoxes(boxes: readonly LayoutBox[], how: Alignment): Positions {
  const moves: Positions = new Map();
  if (boxes.length < 2) return moves;
  const left = Math.min(...boxes.map((b) => b.x));
  const right = Math.max(...boxes.map((b) => b.x + b.width));
  const top = Math.min(...boxes.map((b) => b.y));
  const bottom = Math.max(...boxes.map((b) => b.y + b.height));
  for (const b of boxes) {
    const at = { x: b.x, y: b.y };
    if (how === 'left') at.x = left;
    else if (how === 'right') at.x = right - b.width;
    else if (how === 'centre') at.x = (left + right) / 2 - b.width / 2;
    else if (how === 'top') at.y = top;
    else if (how === 'bottom') at.y = bottom - b.height;
    else at.y = (top + bottom) / 2 - b.height / 2;
    if (at.x !== b.x || at.y !== b.y) moves.set(b.id, at);
  }
  return moves;
}

/**
 * Space boxes evenly along an axis: the first and last (by position) stay,
 * the ones between move so that the gaps between neighbours are equal.
 * Fewer than three boxes: nothing moves.
 */
export function distributeBoxes(boxes: readonly LayoutBox[], axis: Axis): Positions {
  const moves: Positions = new Map();
  if (boxes.length < 3) return moves;
  const start = (b: LayoutBox) => (axis === 'horizontal' ? b.x : b.y);
  const size = (b: LayoutBox) => (axis === 'horizontal' ? b.width : b.height);
  const sorted = [...boxes].sort((a, b) => start(a) - start(b) || a.id.localeCompare(b.id));
  const first = sorted[0]!;
  const last = sorted.at(-1)!;
  const span = start(last) + size(last) - start(first);
  const gap = (span - sorted.reduce((sum, b) => sum + size(b), 0)) / (sorted.length - 1);
  let at = start(first);
  for (const b of sorted) {
    if (at !== start(b))
      moves.set(b.id, axis === 'horizontal' ? { x: at, y: b.y } : { x: b.x, y: at });
    at += size(b) + gap;
  }
  return moves;
}

/** A data-flow connection between two nodes (ports do not matter to layout). */
export interface LayoutLink {
  from: string;
  to: string;
}

export interface AutoLayoutOptions {
  /** Horizontal space between layers. */
  layerGap?: number;
  /** Vertical space between nodes of one layer. */
  nodeGap?: number;
  /** Barycentre sweeps; more rarely helps on flows of this size. */
  sweeps?: number;
}

/**
 * Lay boxes out left to right by data flow. Links to or from boxes not in
 * the list are ignored (so a selection can be laid out alone). The result's
 * top-left corner is the boxes' old top-left corner, so the laid-out part
 * stays where the person was looking. Links that close a cycle are ignored.
 */
export function autoLayout(
  boxes: readonly LayoutBox[],
  links: readonly LayoutLink[],
  options: AutoLayoutOptions = {},
): Positions {
  const { layerGap = 80, nodeGap = 40, sweeps = 4 } = options;
  const moves: Positions = new Map();
  if (boxes.length === 0) return moves;
  const byId = new Map(boxes.map((b) => [b.id, b]));
  const inside = links.filter((l) => byId.has(l.from) && byId.has(l.to) && l.from !== l.to);
  const rank = rankByLongestPath(boxes, inside);

  const upstream = new Map<string, string[]>();
  for (const l of inside)
    if (rank.get(l.from)! < rank.get(l.to)!)
      upstream.set(l.to, [...(upstream.get(l.to) ?? []), l.from]);

  // Layers start in the nodes' current top-to-bottom order, so a layout that
  // is already tidy keeps its order.
  const sparse: LayoutBox[][] = [];
  for (const b of [...boxes].sort((p, q) => p.y - q.y || p.x - q.x || p.id.localeCompare(q.id)))
    (sparse[rank.get(b.id)!] ??= []).push(b);
  // Ranks are contiguous in a DAG; after a broken cycle there may be holes, which this skips.
  const layers = Object.values(sparse);

  const order = new Map<string, number>();
  const number = () => layers.forEach((layer) => layer.forEach((b, i) => order.set(b.id, i)));
  number();
  for (let sweep = 0; sweep < sweeps; sweep++) {
    for (const layer of layers.slice(1)) {
      const centre = (b: LayoutBox) => {
        const ups = upstream.get(b.id) ?? [];
        return ups.length === 0
          ? order.get(b.id)!
          : ups.reduce((sum, u) => sum + order.get(u)!, 0) / ups.length;
      };
      const keys = new Map(layer.map((b) => [b.id, centre(b)]));
      layer.sort(
        (p, q) => keys.get(p.id)! - keys.get(q.id)! || order.get(p.id)! - order.get(q.id)!,
      );
      layer.forEach((b, i) => order.set(b.id, i));
    }
  }

  const originX = Math.min(...boxes.map((b) => b.x));
  const originY = Math.min(...boxes.map((b) => b.y));
  const heights = layers.map((layer) => layerHeight(layer, nodeGap));
  const tallest = Math.max(...heights);
  let x = originX;
  layers.forEach((layer, i) => {
    // Each layer is centred on the tallest, so chains run straight across.
    let y = originY + (tallest - heights[i]!) / 2;
    for (const b of layer) {
      if (b.x !== x || b.y !== y) moves.set(b.id, { x, y });
      y += b.height + nodeGap;
    }
    x += Math.max(...layer.map((b) => b.width)) + layerGap;
  });
  return moves;
}

function layerHeight(layer: readonly LayoutBox[], gap: number): number {
  return layer.reduce((sum, b) => sum + b.height, 0) + gap * (layer.length - 1);
}

/**
 * Layer of each box: 0 for a source, else one more than its deepest
 * upstream neighbour (Kahn's order). Boxes on a cycle, which a valid flow
 * never has, are placed after everything that feeds them and is placed.
 */
function rankByLongestPath(
  boxes: readonly LayoutBox[],
  links: readonly LayoutLink[],
): Map<string, number> {
  const incoming = new Map(boxes.map((b) => [b.id, 0]));
  const next = new Map<string, string[]>();
  for (const l of links) {
    incoming.set(l.to, incoming.get(l.to)! + 1);
    next.set(l.from, [...(next.get(l.from) ?? []), l.to]);
  }
  const rank = new Map<string, number>();
  const ready = boxes.filter((b) => incoming.get(b.id) === 0).map((b) => b.id);
  for (const id of ready) rank.set(id, 0);
  const visit = (queue: string[]) => {
    for (let i = 0; i < queue.length; i++) {
      const id = queue[i]!;
      for (const to of next.get(id) ?? []) {
        rank.set(to, Math.max(rank.get(to) ?? 0, rank.get(id)! + 1));
        const left = incoming.get(to)! - 1;
        incoming.set(to, left);
        if (left === 0) queue.push(to);
      }
    }
  };
  visit(ready);
  // Whatever is left sits on a cycle: break it at the first such box, in list order.
  for (const b of boxes) {
    if (incoming.get(b.id)! <= 0) continue;
    incoming.set(b.id, 0);
    rank.set(b.id, rank.get(b.id) ?? 0);
    visit([b.id]);
  }
  return rank;
}
