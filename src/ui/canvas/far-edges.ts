/**
 * The far view's edges (`far-view.ts`): zoomed out, every edge is drawn on
 * the far view's canvas, under the cards, and the page's own edges are
 * hidden (`canvas.css`).
 *
 * Idea: React Flow draws each edge as an SVG of its own, and with a thousand
 * of them every frame that changed the page's layers (a run's statuses, a
 * panel growing) spent about half its layerizing and a quarter of its
 * painting on edges a fraction of a pixel wide. Here they are one path in
 * flow coordinates, stroked once a frame under any pan and zoom: the curves
 * of React Flow's bezier edges between the same handles, made again only
 * when an edge or a node at one of its ends changes (a run changes neither).
 * Trade-off: zoomed out, an edge cannot be clicked, hovered or reached with
 * the keyboard; zoomed in, or selected with a selection box, it can.
 */
import type { Edge, InternalNode } from '@xyflow/react';

interface Point {
  x: number;
  y: number;
}

/** One edge to draw, in flow coordinates: its two ends and the curve's control points. */
export interface FarEdge {
  from: Point;
  to: Point;
  controls: [Point, Point];
  selected: boolean;
}

/** React Flow's default bezier curvature. */
const CURVATURE = 0.25;

/** How far a control point stands off its end, as React Flow's bezier edge places it. */
function controlOffset(distance: number): number {
  return distance >= 0 ? 0.5 * distance : CURVATURE * 25 * Math.sqrt(-distance);
}

/**
 * The edges to draw, each from its source handle's right side to its target
 * handle's left side (outputs are on a card's right, inputs on its left);
 * edges whose nodes or handles are not measured yet are left out, as React
 * Flow leaves them out.
 */
export function farEdges(
  edges: Iterable<Edge>,
  nodeLookup: ReadonlyMap<string, InternalNode>,
): FarEdge[] {
  const drawn: FarEdge[] = [];
  for (const edge of edges) {
    if (edge.hidden) continue;
    const source = nodeLookup.get(edge.source);
    const target = nodeLookup.get(edge.target);
    const out = source?.internals.handleBounds?.source?.find((h) => h.id === edge.sourceHandle);
    const into = target?.internals.handleBounds?.target?.find((h) => h.id === edge.targetHandle);
    if (!source || !target || !out || !into) continue;
    const from = {
      x: source.internals.positionAbsolute.x + out.x + out.width,
      y: source.internals.positionAbsolute.y + out.y + out.height / 2,
    };
    const to = {
      x: target.internals.positionAbsolute.x + into.x,
      y: target.internals.positionAbsolute.y + into.y + into.height / 2,
    };
    const offset = controlOffset(to.x - from.x);
    const controls: [Point, Point] = [
      { x: from.x + offset, y: from.y },
      { x: to.x - offset, y: to.y },
    ];
    drawn.push({ from, to, controls, selected: edge.selected === true });
  }
  return drawn;
}

/** The edges' strokes, as React Flow's stylesheet gives them. */
export interface FarEdgeLook {
  stroke: string;
  selected: string;
  width: number;
}

/** The edges as two paths in flow coordinates: the others, and the selected ones. */
export interface FarEdgePaths {
  plain: Path2D;
  selected: Path2D;
}

/** Whether each edge's end nodes are still `ends`, the objects, two an edge, paths were made from. */
function sameEnds(
  ends: readonly (InternalNode | undefined)[],
  edges: readonly Edge[],
  nodeLookup: ReadonlyMap<string, InternalNode>,
): boolean {
  return edges.every(
    (edge, i) =>
      nodeLookup.get(edge.source) === ends[2 * i] &&
      nodeLookup.get(edge.target) === ends[2 * i + 1],
  );
}

/**
 * A maker of the edges' paths that keeps the last ones while React Flow's
 * edge list and the nodes at their ends stay the same objects (React Flow
 * replaces a node's object whenever it moves, resizes or is selected).
 */
export function edgePathsMaker(): (
  edges: readonly Edge[],
  nodeLookup: ReadonlyMap<string, InternalNode>,
) => FarEdgePaths {
  let made:
    { edges: readonly Edge[]; ends: (InternalNode | undefined)[]; paths: FarEdgePaths } | undefined;
  return (edges, nodeLookup) => {
    // Asked every frame: compared in place, the ends listed again only when the paths are remade.
    if (made?.edges === edges && sameEnds(made.ends, edges, nodeLookup)) return made.paths;
    const ends = edges.flatMap((edge) => [
      nodeLookup.get(edge.source),
      nodeLookup.get(edge.target),
    ]);
    const paths = { plain: new Path2D(), selected: new Path2D() };
    for (const edge of farEdges(edges, nodeLookup)) {
      const path = edge.selected ? paths.selected : paths.plain;
      const [a, b] = edge.controls;
      path.moveTo(edge.from.x, edge.from.y);
      path.bezierCurveTo(a.x, a.y, b.x, b.y, edge.to.x, edge.to.y);
    }
    made = { edges, ends, paths };
    return paths;
  };
}

/** Stroke the edges' `paths` on `context`, already in flow coordinates. */
export function drawFarEdges(
  context: CanvasRenderingContext2D,
  paths: FarEdgePaths,
  look: FarEdgeLook,
): void {
  context.lineWidth = look.width;
  context.strokeStyle = look.stroke;
  context.stroke(paths.plain);
  context.strokeStyle = look.selected;
  context.stroke(paths.selected);
}
