/**
 * The far view: zoomed out (`node-detail.ts`), every node card is drawn on
 * one canvas instead of by the page, over the edges (drawn there too, by
 * `far-edges.ts`).
 *
 * Idea: a thousand far cards drawn by the page cost every frame 30–45 ms of
 * paint and layerizing however few of them changed (each card is a
 * positioned, transformed element of its own), so a run updating their
 * statuses held the page in long tasks. Drawn here, a frame costs one pass
 * over the cards in view. The page keeps each far card as a transparent box
 * (`canvas.css`): clicks, drags, selection, handles, test ids and the
 * status attribute work as before, and the drawing follows what React Flow
 * holds (positions, sizes, handles, selection) and the node states. A
 * 1,000-node run's frames went from ~40 ms of the page's time to ~25.
 * Trade-off: the cards' look is written twice, as CSS for the full card and
 * here for the far one.
 */
import type { InternalNode } from '@xyflow/react';
import type { NodeKind } from '../../core/catalog/kind';
import type { PortType } from '../../core/catalog/ports';
import type { NodeStatus } from '../../core/run/record';
import { portTypeColour } from '../colours';
import type { FlowNodeData, NodeRunState } from './adapter';
import { drawFarEdges, type FarEdgeLook, type FarEdgePaths } from './far-edges';

/** What part of the flow is in view: React Flow's transform and the pane's size. */
export interface FarViewport {
  x: number;
  y: number;
  zoom: number;
  width: number;
  height: number;
}

export interface FarHandle {
  /** Its centre, in flow coordinates. */
  x: number;
  y: number;
  radius: number;
  colour: string;
}

/** One card to draw, in flow coordinates. */
export interface FarCard {
  id: string;
  x: number;
  y: number;
  width: number;
  height: number;
  status: NodeStatus | 'idle';
  title: string;
  selected: boolean;
  bypass: boolean;
  handles: FarHandle[];
}

/** The colours the page's stylesheet gives cards; read from it once (`readFarPalette`). */
export interface FarPalette {
  font: string;
  text: string;
  accent: string;
  ok: string;
  error: string;
  running: string;
  edges: FarEdgeLook;
}

/** Below this on-screen size a title would be a smudge and is not drawn. */
const SMALLEST_TITLE_PX = 4;
const TITLE_PX = 14;

/**
 * The flow nodes in view (group frames stay with the page), each with the
 * state the canvas shows for it; nodes not measured yet are left out.
 */
export function farCards(
  nodes: Iterable<InternalNode>,
  stateOf: (id: string) => NodeRunState | undefined,
  view: FarViewport,
): FarCard[] {
  const left = -view.x / view.zoom;
  const top = -view.y / view.zoom;
  const right = left + view.width / view.zoom;
  const bottom = top + view.height / view.zoom;
  const cards: FarCard[] = [];
  for (const node of nodes) {
    const { width, height } = node.measured;
    if (node.type !== 'flow' || node.hidden || !width || !height) continue;
    const { x, y } = node.internals.positionAbsolute;
    if (x > right || y > bottom || x + width < left || y + height < top) continue;
    cards.push(cardOf(node, stateOf(node.id)));
  }
  return cards;
}

/**
 * Each node's card as last made, while React Flow's node and its state stay
 * the same objects (both are replaced on any change): a frame of a run makes
 * cards only for the nodes whose state changed, not a thousand each time.
 */
const madeCards = new WeakMap<InternalNode, { state: NodeRunState | undefined; card: FarCard }>();

function cardOf(node: InternalNode, state: NodeRunState | undefined): FarCard {
  const made = madeCards.get(node);
  if (made && made.state === state) return made.card;
  const { x, y } = node.internals.positionAbsolute;
  const data = node.data as FlowNodeData;
  const ports = data.kind ? portTypesOf(data.kind) : undefined;
  const { source, target } = node.internals.handleBounds ?? { source: null, target: null };
  const card: FarCard = {
    id: node.id,
    x,
    y,
    width: node.measured.width ?? 0,
    height: node.measured.height ?? 0,
    status: state?.status ?? 'idle',
    title: data.kind?.title ?? data.kindName,
    selected: node.selected === true,
    bypass: data.bypass,
    handles: [...(target ?? []), ...(source ?? [])].map((handle) => {
      const type = ports?.get(handle.id ?? '');
      return {
        x: x + handle.x + handle.width / 2,
        y: y + handle.y + handle.height / 2,
        radius: handle.width / 2,
        colour: type ? portTypeColour[type] : '#1a192b',
      };
    }),
  };
  madeCards.set(node, { state, card });
  return card;
}

interface FarLook {
  fill: string;
  border: string;
  dashed: boolean;
}

const portTypes = new WeakMap<NodeKind, ReadonlyMap<string, PortType>>();

/** Each port's type by name, made once per kind. */
function portTypesOf(kind: NodeKind): ReadonlyMap<string, PortType> {
  let types = portTypes.get(kind);
  if (!types) {
    types = new Map([...kind.inputs, ...kind.outputs].map((port) => [port.name, port.type]));
    portTypes.set(kind, types);
  }
  return types;
}

/** A card's fill and border for its status, as the full card's stylesheet colours them. */
export function farLook(status: FarCard['status'], palette: FarPalette): FarLook {
  switch (status) {
    case 'queued':
      return { fill: '#f4f4dc', border: '#9e9d24', dashed: false };
    case 'running':
      return { fill: '#dbe7f6', border: palette.running, dashed: false };
    case 'ok':
    case 'cached':
      return { fill: '#dcefdf', border: palette.ok, dashed: false };
    case 'error':
    case 'interrupted':
      return { fill: '#f8dcdc', border: palette.error, dashed: false };
    case 'cancelled':
    case 'skipped':
      return { fill: '#fff', border: '#9aa3af', dashed: true };
    default:
      return { fill: '#fff', border: '#9aa3af', dashed: false };
  }
}

/** The palette from the stylesheet's tokens, as they apply at `element`. */
export function readFarPalette(element: Element): FarPalette {
  const style = getComputedStyle(element);
  const token = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
  return {
    font: style.fontFamily || 'system-ui, sans-serif',
    text: style.color || '#1d2430',
    accent: token('--accent', '#1f4e79'),
    ok: token('--ok', '#276b2b'),
    error: token('--error', '#c62828'),
    running: token('--running', '#1565c0'),
    edges: {
      stroke: token('--xy-edge-stroke', token('--xy-edge-stroke-default', '#b1b1b7')),
      selected: token(
        '--xy-edge-stroke-selected',
        token('--xy-edge-stroke-selected-default', '#555'),
      ),
      width: Number(token('--xy-edge-stroke-width', token('--xy-edge-stroke-width-default', '1'))),
    },
  };
}

/**
 * Draw `edges`, then `cards` over them, on a 2D context sized
 * `view.width × view.height` CSS pixels at `scale` device pixels each.
 * Cards that look the same are drawn as one path, filled and stroked once
 * (a thousand cards drawn one by one cost more to raster than the page's
 * own far cards did); so where two cards overlap, which is on top follows
 * their looks, not the flow's order.
 */
export function drawFarView(
  context: CanvasRenderingContext2D,
  cards: readonly FarCard[],
  edges: FarEdgePaths,
  view: FarViewport,
  palette: FarPalette,
  scale: number,
): void {
  context.setTransform(1, 0, 0, 1, 0, 0);
  context.clearRect(0, 0, context.canvas.width, context.canvas.height);
  context.setTransform(scale * view.zoom, 0, 0, scale * view.zoom, scale * view.x, scale * view.y);
  drawFarEdges(context, edges, palette.edges);
  const looks = new Map<string, { look: FarLook; bypass: boolean; cards: FarCard[] }>();
  for (const card of cards) {
    const look = farLook(card.status, palette);
    const key = `${look.fill} ${look.border} ${look.dashed} ${card.bypass}`;
    const same = looks.get(key);
    if (same) same.cards.push(card);
    else looks.set(key, { look, bypass: card.bypass, cards: [card] });
  }
  const selected = cards.filter((card) => card.selected);
  if (selected.length > 0) {
    context.beginPath();
    for (const card of selected)
      context.roundRect(card.x - 8, card.y - 8, card.width + 16, card.height + 16, 14);
    context.fillStyle = palette.accent;
    context.fill();
  }
  // Corners and dots under two pixels are drawn square: the same picture, rastered faster.
  const rounded = 8 * view.zoom >= 2;
  context.lineWidth = 1.5;
  for (const { look, bypass, cards: alike } of looks.values()) {
    context.globalAlpha = bypass ? 0.45 : 1;
    context.beginPath();
    for (const card of alike)
      if (rounded) context.roundRect(card.x, card.y, card.width, card.height, 8);
      else context.rect(card.x, card.y, card.width, card.height);
    context.fillStyle = look.fill;
    context.fill();
    context.strokeStyle = look.border;
    context.setLineDash(look.dashed || bypass ? [6, 4] : []);
    context.stroke();
  }
  context.setLineDash([]);
  context.globalAlpha = 1;
  if (TITLE_PX * view.zoom >= SMALLEST_TITLE_PX) {
    context.font = `600 ${TITLE_PX}px ${palette.font}`;
    context.textBaseline = 'top';
    context.fillStyle = palette.text;
    for (const card of cards)
      context.fillText(fitted(context, card.title, card.width - 16), card.x + 8, card.y + 6);
  }
  const handles = new Map<string, FarHandle[]>();
  for (const card of cards)
    for (const handle of card.handles) {
      const same = handles.get(handle.colour);
      if (same) same.push(handle);
      else handles.set(handle.colour, [handle]);
    }
  context.lineWidth = 2;
  context.strokeStyle = '#fff';
  for (const [colour, dots] of handles) {
    context.beginPath();
    for (const { x, y, radius } of dots)
      if (radius * view.zoom < 2) context.rect(x - radius, y - radius, 2 * radius, 2 * radius);
      else {
        context.moveTo(x + radius, y);
        context.arc(x, y, radius, 0, 2 * Math.PI);
      }
    context.fillStyle = colour;
    context.fill();
    context.stroke();
  }
}

/** `text` as it fits in `width`: whole, or cut with an ellipsis (as the page's card clips it). */
function fitted(context: CanvasRenderingContext2D, text: string, width: number): string {
  const key = `${context.font}|${width}|${text}`;
  let fit = fittedTexts.get(key);
  if (fit === undefined) {
    fit = text;
    while (fit.length > 0 && context.measureText(fit === text ? fit : `${fit}…`).width > width)
      fit = fit.slice(0, -1);
    if (fit !== text) fit = `${fit}…`;
    if (fittedTexts.size > 1_000) fittedTexts.clear();
    fittedTexts.set(key, fit);
  }
  return fit;
}

const fittedTexts = new Map<string, string>();
